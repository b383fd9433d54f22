import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { DEMO_DATA_SEED, generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { hashFile, loadHotpot } from "../src/data/hotpot_load.ts";
import { toOfficialHotpotJson } from "../src/data/hotpot_json.ts";
import { hotpotParquetBytes, writeHotpotParquet } from "../src/data/hotpot_parquet.ts";
import { UsageError } from "../src/errors.ts";
import { assetPath } from "../src/assets.ts";

const SHARED = fileURLToPath(new URL("../../shared/data/", import.meta.url));
const REAL_PARQUET = join(SHARED, "hotpot_dev_real20.hf.parquet");
const REAL_JSON = join(SHARED, "hotpot_dev_real20.official.json");

Deno.test("both real HotpotQA layouts load into equal records", async () => {
  const fromParquet = await loadHotpot(REAL_PARQUET);
  const fromJson = await loadHotpot(REAL_JSON);
  assert.equal(fromParquet.length, 20);
  assert.deepEqual(fromParquet, fromJson);
  const first = fromJson[0];
  assert.equal(first.id, "5ae143ed55429920d5234360");
  assert.equal(first.answer, "1755");
  assert.deepEqual(first.supporting_facts[1], { title: "Moscow State University", sent_id: 3 });
  assert.equal(first.context.length, 10);
  assert.equal(fromJson.filter((r) => r.type === "bridge").length, 12);
});

Deno.test("hashFile gives the SHA-256 of the file's bytes", async () => {
  const sums = await Deno.readTextFile(join(SHARED, "SHA256SUMS"));
  const expected = sums.split("\n").find((l) => l.endsWith("hotpot_dev_real20.hf.parquet"))?.split(/\s+/)[0];
  assert.equal(await hashFile(REAL_PARQUET), expected);
});

Deno.test("loader names the file, the record index and the field of a bad value", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const records = toOfficialHotpotJson(await loadHotpot(REAL_JSON)) as unknown as Record<string, unknown>[];
    (records[3].context as unknown[][])[2][1] = ["fine", 7];
    const path = join(dir, "bad.json");
    await Deno.writeTextFile(path, JSON.stringify(records));
    await assert.rejects(loadHotpot(path), (e: Error) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, /bad\.json: record 3: field context\[2\]\[1\]\[1\]/);
      return true;
    });
    const wrongType = toOfficialHotpotJson(await loadHotpot(REAL_JSON)) as unknown as Record<
      string,
      unknown
    >[];
    wrongType[5].type = "multi-hop";
    await Deno.writeTextFile(path, JSON.stringify(wrongType));
    await assert.rejects(loadHotpot(path), /record 5: field type/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loader refuses unknown extensions, missing files and non-Parquet bytes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(loadHotpot(join(dir, "x.csv")), UsageError);
    await assert.rejects(loadHotpot(join(dir, "missing.json")), /missing\.json: no such file/);
    const fake = join(dir, "fake.parquet");
    await Deno.writeTextFile(fake, "not parquet at all");
    await assert.rejects(loadHotpot(fake), /fake\.parquet: not a readable Parquet file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("written Parquet reads back equal to what was written", async () => {
  const records = await loadHotpot(REAL_JSON);
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "rt.parquet");
    await writeHotpotParquet(records, path);
    assert.deepEqual(await loadHotpot(path), records);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("generator is deterministic and alternates bridge and comparison", () => {
  const a = generateHotpotRecords(12, "s1");
  const b = generateHotpotRecords(12, "s1");
  const c = generateHotpotRecords(12, "s2");
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.deepEqual(a.map((r) => r.type), a.map((_, i) => (i % 2 === 0 ? "bridge" : "comparison")));
});

Deno.test("generated answers and supporting facts are correct by construction", () => {
  const records = generateHotpotRecords(200, "facts");
  const titles = new Set<string>();
  for (const r of records) {
    assert.equal(r.context.length, 10);
    for (const a of r.context) {
      assert.ok(!titles.has(a.title), `title ${a.title} repeats across records`);
      titles.add(a.title);
      assert.ok(a.sentences.length >= 5);
    }
    const facts = r.supporting_facts.map((f) =>
      r.context.find((a) => a.title === f.title)?.sentences[f.sent_id]
    );
    assert.equal(facts.length, 2);
    for (const s of facts) assert.equal(typeof s, "string");
    if (r.answer === "yes" || r.answer === "no") continue;
    if (/^\d+$/.test(r.answer)) {
      assert.ok(facts[1]?.includes(r.answer), `${r.id}: the second fact states the year`);
    } else if (r.type === "bridge") {
      assert.ok(
        facts[1]?.includes(r.answer) || facts[0]?.includes(r.answer),
        `${r.id}: a fact names ${r.answer}`,
      );
    } else {
      assert.ok(r.question.includes(r.answer), `${r.id}: the answer is one of the compared entities`);
    }
  }
});

Deno.test("comparison answers follow the stated numbers", () => {
  for (const r of generateHotpotRecords(300, "compare").filter((r) => r.type === "comparison")) {
    const facts = r.supporting_facts.map((f) =>
      r.context.find((a) => a.title === f.title)!.sentences[f.sent_id]
    );
    const numbers = facts.map((s) => Number(/(\d{2,4})/.exec(s.replace(/\(born \d+\)/, ""))?.[1]));
    if (r.question.startsWith("Which company was founded first")) {
      assert.equal(
        r.answer,
        numbers[0] < numbers[1] ? r.supporting_facts[0].title : r.supporting_facts[1].title,
      );
    } else if (r.question.startsWith("Which river is longer")) {
      assert.equal(
        r.answer,
        numbers[0] > numbers[1] ? r.supporting_facts[0].title : r.supporting_facts[1].title,
      );
    } else if (r.question.startsWith("Were ")) {
      assert.equal(r.answer, numbers[0] < numbers[1] ? "yes" : "no");
    } else {
      const prof = /both (\w+)s\?$/.exec(r.question)![1];
      assert.equal(r.answer, facts.every((s) => s.includes(` ${prof} `)) ? "yes" : "no");
    }
  }
});

Deno.test("shipped demo fixtures are the generator's output in both layouts", async () => {
  const expected = generateHotpotRecords(48, DEMO_DATA_SEED);
  const parquetPath = assetPath("fixtures/hotpot/demo.parquet");
  const jsonPath = assetPath("fixtures/hotpot/demo.json");
  assert.deepEqual(await loadHotpot(parquetPath), expected);
  assert.deepEqual(await loadHotpot(jsonPath), expected);
  const bytes = hotpotParquetBytes(expected);
  const shipped = await Deno.readFile(parquetPath);
  assert.equal(
    createHash("sha256").update(bytes).digest("hex"),
    createHash("sha256").update(shipped).digest("hex"),
    "fixtures/hotpot/demo.parquet is stale: run scripts/gen_hotpot_fixtures.ts",
  );
  const size = shipped.length + (await Deno.stat(jsonPath)).size;
  assert.ok(size < 2 * 2 ** 20, `demo fixtures are ${size} bytes`);
});
