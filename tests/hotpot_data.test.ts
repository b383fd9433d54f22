import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { DEMO_DATA_SEED, generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import type { HotpotRecord } from "../src/data/hotpot_record.ts";
import { loadHotpot } from "../src/data/hotpot_load.ts";
import { hashFile } from "../src/core/file_chunks.ts";
import { toOfficialHotpotJson } from "../src/data/hotpot_json.ts";
import { hotpotParquetBytes, writeHotpotParquet } from "../src/data/hotpot_parquet_write.ts";
import { UsageError } from "../src/errors.ts";
import { assetPath } from "../src/assets.ts";

const SHARED = fileURLToPath(new URL("./fixtures/shared_data/", import.meta.url));
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
    await assert.rejects(loadHotpot(join(dir, "missing.json")), /missing\.json: not found/);
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

// ---- Distractors: lexically close to the question, never stating what it asks ----

/** One fact a sentence states: `relation` of `subject` is `value`. */
interface Claim {
  subject: string;
  relation: string;
  value: string;
}

/** "Orar" in the article "Fenor Orar" is Fenor Orar; any other subject stands for itself. */
function resolve(subject: string, title: string): string {
  return !subject.includes(" ") && title.endsWith(` ${subject}`) ? title : subject;
}

/**
 * The facts a generated sentence states, read from its wording alone (independent of the generator's
 * internals): every form of sentence that states a birthplace, a founder, a founding year, a river, a
 * headquarters, a length, a band's formation or a profession.
 */
function claimsOf(sentence: string, title: string): Claim[] {
  const c = (subject: string, relation: string, value: string): Claim => ({
    subject: resolve(subject, title),
    relation,
    value,
  });
  let m: RegExpExecArray | null;
  if ((m = /^(.+) \(born \d{4}\) is an? (\w+) from the \w+ region\.$/.exec(sentence))) {
    return [c(m[1], "profession", m[2])];
  }
  if ((m = /^(.+?) was born in the city of (.+?) and grew up there\.$/.exec(sentence))) {
    return [c(m[1], "born", m[2])];
  }
  if ((m = /^(.+?), a cousin of .+?, was born in the city of (.+?)\.$/.exec(sentence))) {
    return [c(m[1], "born", m[2])];
  }
  if ((m = /^In (\d{4}), (.+?) founded (.+?)\.$/.exec(sentence))) {
    const founder = resolve(m[2], title);
    return [c(founder, "founded company", m[3]), c(m[3], "founder", founder), c(m[3], "founded in", m[1])];
  }
  if ((m = /^(.+?) was founded by (.+?) in (\d{4})(?: as a rival to .+?)?\.$/.exec(sentence))) {
    return [c(m[1], "founder", m[2]), c(m[1], "founded in", m[3]), c(m[2], "founded company", m[1])];
  }
  if ((m = /^(.+?) is best known as the founder of (.+?)\.$/.exec(sentence))) {
    const founder = resolve(m[1], title);
    return [c(m[2], "founder", founder), c(founder, "founded company", m[2])];
  }
  if ((m = /^(.+?) was founded in (\d{4})\.$/.exec(sentence))) return [c(m[1], "founded in", m[2])];
  if ((m = /^(.+?) lies on the banks of the (.+?)\.$/.exec(sentence))) return [c(m[1], "river", m[2])];
  if ((m = /^The company is headquartered in (.+?)\.$/.exec(sentence))) return [c(title, "hq", m[1])];
  if ((m = /^The (.+?) is (\d+) kilometres long\.$/.exec(sentence))) return [c(m[1], "length", m[2])];
  if ((m = /^(.+?) were formed in (.+?) in (\d{4})\.$/.exec(sentence))) {
    return [c(m[1], "formed in city", m[2]), c(m[1], "formed in year", m[3])];
  }
  if ((m = /^(.+?) were formed in (.+?), and the band still plays there every \w+\.$/.exec(sentence))) {
    return [c(m[1], "formed in city", m[2])];
  }
  return [];
}

/** Words that mark a sentence as stating one of the relations above; such a sentence must yield a claim. */
const RELATION_WORDS = /\b(?:born|founded|founder|formed|lies on|headquartered|kilometres long)\b/;

/** What a question asks: the (subject, relation) pairs it needs, and its answer from the gold claims. */
function derive(question: string, gold: Claim[]): { asked: [string, string][]; answer: string } {
  const get = (subject: string, relation: string) => {
    const values = new Set(
      gold.filter((x) => x.subject === subject && x.relation === relation).map((x) => x.value),
    );
    assert.equal(
      values.size,
      1,
      `gold sentences state ${relation} of ${subject} exactly once: ${[...values]}`,
    );
    return [...values][0];
  };
  const two = (a: string, b: string, relation: string) => {
    const [va, vb] = [get(a, relation), get(b, relation)];
    return { asked: [[a, relation], [b, relation]] as [string, string][], va, vb };
  };
  let m: RegExpExecArray | null;
  if ((m = /^Which river flows through the city where (.+) was born\?$/.exec(question))) {
    const city = get(m[1], "born");
    return { asked: [[m[1], "born"], [city, "river"]], answer: get(city, "river") };
  }
  if ((m = /^In what year was the city where (.+) were formed founded\?$/.exec(question))) {
    const city = get(m[1], "formed in city");
    return { asked: [[m[1], "formed in city"], [city, "founded in"]], answer: get(city, "founded in") };
  }
  if ((m = /^In which city was the founder of (.+) born\?$/.exec(question))) {
    const founder = get(m[1], "founder");
    return { asked: [[m[1], "founder"], [founder, "born"]], answer: get(founder, "born") };
  }
  if ((m = /^In which city is the company founded by (.+) headquartered\?$/.exec(question))) {
    const company = get(m[1], "founded company");
    return { asked: [[m[1], "founded company"], [company, "hq"]], answer: get(company, "hq") };
  }
  if ((m = /^Which company was founded first, (.+) or (.+)\?$/.exec(question))) {
    const { asked, va, vb } = two(m[1], m[2], "founded in");
    return { asked, answer: Number(va) < Number(vb) ? m[1] : m[2] };
  }
  if ((m = /^Which river is longer, the (.+) or the (.+)\?$/.exec(question))) {
    const { asked, va, vb } = two(m[1], m[2], "length");
    return { asked, answer: Number(va) > Number(vb) ? m[1] : m[2] };
  }
  if ((m = /^Are (.+) and (.+) both (\w+)s\?$/.exec(question))) {
    const { asked, va, vb } = two(m[1], m[2], "profession");
    return { asked, answer: va === m[3] && vb === m[3] ? "yes" : "no" };
  }
  if ((m = /^Were (.+) formed before (.+)\?$/.exec(question))) {
    const { asked, va, vb } = two(m[1], m[2], "formed in year");
    return { asked, answer: Number(va) < Number(vb) ? "yes" : "no" };
  }
  throw new Error(`unknown question form: ${question}`);
}

function checkRecord(r: HotpotRecord): void {
  const goldTitles = new Set(r.supporting_facts.map((f) => f.title));
  const gold = r.supporting_facts.flatMap((f) => {
    const article = r.context.find((a) => a.title === f.title)!;
    return claimsOf(article.sentences[f.sent_id], article.title);
  });
  const { asked, answer } = derive(r.question, gold);
  assert.equal(r.answer, answer, `${r.id}: the gold sentences alone give the answer`);
  const all = r.context.flatMap((a) =>
    a.sentences.map((s) => {
      const claims = claimsOf(s, a.title);
      if (RELATION_WORDS.test(s)) assert.ok(claims.length > 0, `${r.id}: unread relation sentence "${s}"`);
      return { title: a.title, sentence: s, claims };
    })
  );
  const seen = new Map<string, string>();
  for (const { title, sentence, claims } of all) {
    for (const x of claims) {
      const key = `${x.subject}\u0000${x.relation}`;
      assert.equal(seen.get(key) ?? x.value, x.value, `${r.id}: "${sentence}" contradicts the record`);
      seen.set(key, x.value);
      if (goldTitles.has(title)) continue;
      for (const [subject, relation] of asked) {
        assert.ok(
          x.subject !== subject || x.relation !== relation,
          `${r.id}: distractor "${title}" states the asked ${relation} of ${subject}: "${sentence}"`,
        );
      }
    }
  }
}

Deno.test("every answer follows from the gold sentences alone and no distractor states an asked fact", async () => {
  const demo = await loadHotpot(assetPath("fixtures/hotpot/demo.parquet"));
  for (const r of [...generateHotpotRecords(160, "distractors"), ...demo]) checkRecord(r);
});

Deno.test("claim reading catches a distractor that states an asked fact", () => {
  const r = generateHotpotRecords(40, "planted").find((x) => x.question.startsWith("Which river flows"))!;
  const city = r.context.find((a) => a.title === r.supporting_facts[1].title)!;
  const distractor = r.context.find((a) => !r.supporting_facts.some((f) => f.title === a.title))!;
  distractor.sentences.push(`${city.title} lies on the banks of the Other River.`);
  assert.throws(() => checkRecord(r), /contradicts the record|states the asked river of/);
  distractor.sentences.pop();
  const river = /lies on the banks of the (.+)\.$/.exec(city.sentences[r.supporting_facts[1].sent_id])![1];
  distractor.sentences.push(`${city.title} lies on the banks of the ${river}.`);
  assert.throws(() => checkRecord(r), /distractor .* states the asked river of/);
});

Deno.test("most distractors share words with the gold articles' names, as HotpotQA's retrieved ones do", () => {
  for (const r of generateHotpotRecords(80, "lexical")) {
    const goldTitles = new Set(r.supporting_facts.map((f) => f.title));
    const names = [...goldTitles].flatMap((t) => t.split(" ")).filter((w) => w !== "The");
    const has = (text: string) => names.some((w) => new RegExp(`\\b${w}\\b`).test(text));
    const distractors = r.context.filter((a) => !goldTitles.has(a.title));
    const namesakes = distractors.filter((a) => has(a.title));
    const close = distractors.filter((a) => has(`${a.title} ${a.sentences.join(" ")}`));
    assert.ok(
      namesakes.length >= 2,
      `${r.id}: ${namesakes.length} distractor titles share a gold name's word`,
    );
    assert.ok(close.length >= 3, `${r.id}: ${close.length} distractors name a gold article's words`);
  }
});
