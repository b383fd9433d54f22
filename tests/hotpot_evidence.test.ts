import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { loadHotpot } from "../src/data/hotpot_load.ts";
import { generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { renderUnit, sourceOrder, unitsFromRecord } from "../src/suites/hotpot/run/methods.ts";
import { parseNumberedLines, sentenceIdFromLineNumber } from "../src/suites/hotpot/read_file.ts";

const REAL_JSON = fileURLToPath(
  new URL("./fixtures/shared_data/hotpot_dev_real20.official.json", import.meta.url),
);

Deno.test("an article's groups concatenate back to its sentences exactly", async () => {
  const records = [...await loadHotpot(REAL_JSON), ...generateHotpotRecords(10, "units")];
  for (const record of records) {
    const units = unitsFromRecord(record);
    record.context.forEach((article, i) => {
      const mine = units.filter((u) => u.article_index === i);
      assert.deepEqual(mine.flatMap((u) => u.sentences), article.sentences);
      assert.deepEqual(mine.flatMap((u) => u.sentence_ids), article.sentences.map((_, k) => k));
      for (const u of mine) {
        assert.equal(u.title, article.title);
        assert.ok(u.sentences.length >= 1 && u.sentences.length <= 3);
      }
    });
    assert.equal(new Set(units.map((u) => u.id)).size, units.length);
  }
});

Deno.test("unit ids depend only on title and sentence ids", () => {
  const [record] = generateHotpotRecords(1, "ids");
  const units = unitsFromRecord(record);
  const title = record.context[0].title;
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, "_");
  assert.equal(units[0].id, `${slug}#0-2`);
  const shuffled = structuredClone(record);
  shuffled.context.reverse();
  const again = unitsFromRecord(shuffled);
  assert.deepEqual(new Set(again.map((u) => u.id)), new Set(units.map((u) => u.id)));
  assert.deepEqual(sourceOrder([...units].reverse()), units);
});

Deno.test("a rendered unit shows its title and N|text lines with N = sentence id + 1", () => {
  const [record] = generateHotpotRecords(1, "render");
  const unit = unitsFromRecord(record)[1];
  const text = renderUnit(unit);
  const [header, ...rest] = text.split("\n");
  assert.equal(header, `## ${unit.title}`);
  const lines = parseNumberedLines(rest.join("\n"));
  assert.deepEqual(lines.map((l) => sentenceIdFromLineNumber(l.line)), unit.sentence_ids);
  assert.deepEqual(lines.map((l) => l.text), unit.sentences);
  assert.equal(rest[0], `     4|${record.context[0].sentences[3]}`);
});
