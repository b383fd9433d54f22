import assert from "node:assert/strict";
import { join } from "node:path";
import { generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { hotpotRecordBatches, loadHotpot } from "../src/data/hotpot_load.ts";
import { hotpotParquetBatches } from "../src/data/hotpot_parquet.ts";
import { hotpotParquetBytes } from "../src/data/hotpot_parquet_write.ts";
import { toOfficialHotpotJson } from "../src/data/hotpot_json.ts";
import { hotpotDatasetFile } from "../src/suites/hotpot/collect/dataset_file.ts";
import {
  DEFAULT_SELECTION,
  selectionCandidate,
  selectQuestions,
} from "../src/suites/hotpot/collect/select.ts";
import { selectionReportOf } from "../src/suites/hotpot/collect/stages/collect.ts";

const RECORDS = generateHotpotRecords(53, "batches");
/** 53 records in row groups of 20 (20, 20, 13), written by hyparquet-writer. */
const PARQUET = hotpotParquetBytes(RECORDS, 20);

async function withDataset(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "parquet-batches-" });
  try {
    const path = join(dir, "ds.parquet");
    await Deno.writeFile(path, PARQUET);
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the sliced Parquet reader yields every record in file order, in batches within row-group slices", async () => {
  await withDataset(async (path) => {
    const batches: number[] = [];
    const records = [];
    // Slices of 8 rows of groups of 20 (8, 8, 4 per group), batches of at most 3 records.
    for await (const batch of hotpotParquetBatches(path, undefined, { decodeRows: 8, batchRows: 3 })) {
      batches.push(batch.length);
      records.push(...batch);
    }
    assert.deepEqual(records, RECORDS);
    assert.deepEqual(await loadHotpot(path), RECORDS);
    assert.ok(batches.every((n) => n >= 1 && n <= 3), `batch sizes ${batches}`);
    // A slice never spans two row groups: the batches of the first group add up to 20.
    const sums = batches.reduce((acc, n) => [...acc, (acc.at(-1) ?? 0) + n], [] as number[]);
    assert.ok(sums.includes(20) && sums.includes(40), `cumulative ${sums}`);
    assert.equal(sums.at(-1), 53);
  });
});

Deno.test("selection from a dataset file keeps only candidates and the selected records, and equals selection over all records", async () => {
  await withDataset(async (path) => {
    const selection = { ...DEFAULT_SELECTION, bridge: 4, comparison: 3 };
    const whole = selectQuestions(RECORDS, selection);
    const dataset = hotpotDatasetFile(path, "--dataset");
    const candidates = await dataset.candidates(selection);
    // What selection keeps of a record is not the record: no question, answer, sentences or facts.
    assert.equal(candidates.length, RECORDS.length);
    for (const candidate of candidates) {
      assert.deepEqual(Object.keys(candidate).sort(), ["id", "key", "problem", "titles", "type"]);
      if (candidate.problem !== null) assert.deepEqual(candidate.titles, []);
    }
    const fromFile = selectionReportOf(candidates, selection);
    assert.deepEqual(
      fromFile,
      selectionReportOf(RECORDS.map((r) => selectionCandidate(r, selection)), selection),
    );
    assert.deepEqual(fromFile.ids, whole.selected.map((r) => r.id));
    // The second pass keeps the selected records only, and counts them all.
    const { byId, total } = await dataset.records(new Set(fromFile.ids));
    assert.equal(total, RECORDS.length);
    assert.deepEqual([...byId.keys()].sort(), [...fromFile.ids].sort());
    assert.deepEqual(fromFile.ids.map((id) => byId.get(id)), whole.selected);
    // The candidates are remembered: the same promise for the same options.
    assert.equal(dataset.candidates(selection), dataset.candidates({ ...selection, bridge: 1 }));
  });
});

Deno.test("an official JSON dataset is one batch and selects like its Parquet twin", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parquet-batches-" });
  try {
    const path = join(dir, "ds.json");
    await Deno.writeTextFile(path, JSON.stringify(toOfficialHotpotJson(RECORDS)));
    const batches = [];
    for await (const batch of hotpotRecordBatches(path)) batches.push(batch);
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0], RECORDS);
    const selection = { ...DEFAULT_SELECTION, bridge: 2, comparison: 2 };
    const fromJson = selectionReportOf(await hotpotDatasetFile(path).candidates(selection), selection);
    assert.deepEqual(
      fromJson,
      selectionReportOf(RECORDS.map((r) => selectionCandidate(r, selection)), selection),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a corrupt row group is refused naming the file, even after good batches were read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "parquet-batches-" });
  try {
    const path = join(dir, "broken.parquet");
    // Overwrite bytes in the middle of the data pages (the footer, read first, stays intact).
    const bytes = PARQUET.slice();
    bytes.fill(0xff, Math.floor(bytes.length * 0.5), Math.floor(bytes.length * 0.6));
    await Deno.writeFile(path, bytes);
    let good = 0;
    await assert.rejects(
      async () => {
        for await (const batch of hotpotParquetBatches(path, "--dataset")) good += batch.length;
      },
      (e: Error) => e.name === "UsageError" && e.message.startsWith(`${path}: `),
    );
    assert.ok(good >= 20, `the first row group was read before the corrupt one (${good} records)`);
    assert.ok(good < RECORDS.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
