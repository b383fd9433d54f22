/**
 * Questions that measure: LoCoMo's own QA annotations scored by LoCoMo's answer F1 (its normalisation and
 * per-category rules, no LLM judge), `--sample K|all` giving a row per conversation per engine with a pooled
 * mean and 95% CI, one question per prompt in protocol.json, and the reference model answering from a system
 * message (an engine's digest there, as lean-ctx writes it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { importTranscript } from "../src/data/transcripts/import.ts";
import {
  declines,
  locomoF1,
  multiAnswerF1,
  normalizeLocomo,
  tokenF1,
} from "../src/suites/engines/locomo_f1.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { sharedCounter, startReferenceModels } from "./engines_fixtures/models.ts";
import { runCli } from "./helpers/spawn.ts";

const FIXTURE = new URL("./fixtures/locomo_small.json", import.meta.url).pathname;
const RECALL_ENGINE = new URL("./engines_fixtures/recall_engine.py", import.meta.url).pathname;
const DIGEST_ENGINE = new URL("./engines_fixtures/system_digest_engine.py", import.meta.url).pathname;

Deno.test("LoCoMo F1: its normalisation, Porter stems, and each category's rule", () => {
  assert.equal(normalizeLocomo("The cat, a dog AND an owl!"), "cat dog owl");
  assert.equal(normalizeLocomo("  Mother's   Day.  "), "mothers day");
  assert.equal(tokenF1("Biscuit", "Biscuit"), 1);
  assert.equal(tokenF1("", "Biscuit"), 0);
  assert.equal(tokenF1("adopted beagles", "adopt beagle"), 1, "stems meet");
  // 1 shared word of 4 predicted and 1 gold: precision 1/4, recall 1.
  assert.equal(tokenF1("she painted the teal bicycle", "teal"), 2 * 0.25 / 1.25);
  // Category 1: each gold part's best predicted part, averaged.
  assert.equal(multiAnswerF1("pottery, painting", "painting, pottery"), 1);
  assert.equal(multiAnswerF1("pottery", "pottery, painting"), 0.5);
  assert.equal(locomoF1("pottery", "pottery, painting", 1), 0.5);
  assert.equal(locomoF1("pottery painting", "pottery, painting", 2), 1, "other categories: whole text");
  // Category 3: the gold answer before its first ';'.
  assert.equal(locomoF1("Lisbon", "Lisbon; he moved in March", 3), 1);
  assert.ok(locomoF1("Lisbon", "Lisbon; he moved in March", 2) < 1);
  // Category 5: a decline scores 1, an answer 0, whatever the gold text.
  for (const reply of ["NOT IN CONTEXT", "Not mentioned in the conversation", "No information available."]) {
    assert.ok(declines(reply), reply);
    assert.equal(locomoF1(reply, "cello", 5), 1);
  }
  assert.equal(locomoF1("cello", "cello", 5), 0);
  assert.equal(locomoF1("cello", "", 0), 0, "no category: whole-text F1");
});

Deno.test("a LoCoMo import keeps every QA item as a question scored by LoCoMo's F1, adversarial ones included", async () => {
  const first = await importTranscript(FIXTURE);
  assert.equal(first.meta.samples, 2);
  assert.deepEqual(first.probes.map((p) => [p.category, p.scoring, p.evidence.length]), [
    ["4", "locomo", 1],
    ["1", "locomo", 1],
    ["3", "locomo", 1],
    ["5", "locomo", 1],
    ["2", "locomo", 0],
  ]);
  assert.equal(first.probes[3].answer, "");
  assert.equal(first.probes[3].adversarial_answer, "cello");
  assert.deepEqual(first.notes, [
    "1 QA items without an answer skipped",
    "1 QA items without known evidence (kept)",
    "1 evidence ids not found in the conversation ignored",
  ]);
});

Deno.test("LoCoMo QA through the reference model: per-question F1, overall and per category, declines for category 5", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const transcript = await importTranscript(FIXTURE);
    const [full, truncate] = await runEngines({
      messages: transcript.messages,
      probes: transcript.probes,
      engines: ["full", "truncate"],
      repeats: 0,
      counter,
      chat: models.chat,
    });
    assert.equal(full.status, "ok");
    const answers = full.probes!.answers.map((a) => [a.reply, a.f1]);
    assert.deepEqual(answers, [
      ["Biscuit", 1],
      ["pottery, painting", 1],
      ["Lisbon, I moved there in March", 2 / 7],
      ["NOT IN CONTEXT", 1],
      ["NOT IN CONTEXT", 0],
    ]);
    assert.equal(full.probes!.f1, (3 + 2 / 7) / 5);
    assert.equal(full.probes!.f1_questions, 5);
    assert.equal(full.probes!.by_type["3"].f1, 2 / 7);
    assert.equal(full.probes!.by_type["5"].f1, 1);
    // The adversarial question's one "fact" is the decline.
    assert.equal(full.probes!.by_type["5"].found, 1);
    // A quarter of the tokens keeps the tail only: the early answers are gone.
    assert.ok(truncate.probes!.f1! < full.probes!.f1!, `${truncate.probes!.f1} < ${full.probes!.f1}`);
    assert.equal(truncate.probes!.by_type["4"].f1, 0);
  } finally {
    await models.close();
  }
});

Deno.test("LoCoMo F1 +recovery: an engine's recall tools bring dropped answers back, scored the same way", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const transcript = await importTranscript(FIXTURE);
    const [r] = await runEngines({
      messages: transcript.messages,
      probes: transcript.probes,
      engines: [{ name: "recall", spec: `exec+tools:python3 ${RECALL_ENGINE} 2` }],
      repeats: 0,
      counter,
      chat: models.chat,
    });
    assert.equal(r.status, "ok", r.reason ?? "");
    const inWindow = r.probes!.f1!;
    const recovered = r.recovery!.probes!;
    assert.equal(recovered.answers.length, 5);
    assert.ok(recovered.answers.every((a) => a.f1 !== undefined));
    assert.ok(recovered.f1! > inWindow, `${recovered.f1} > ${inWindow}`);
    assert.equal(recovered.answers[0].reply, "Biscuit");
    assert.equal(recovered.by_type["4"].f1, 1);
  } finally {
    await models.close();
  }
});

Deno.test("the reference model answers from a digest an engine puts in a system message (QA above 0)", async () => {
  const counter = await sharedCounter();
  const models = await startReferenceModels();
  try {
    const generated = generateTranscript({ turns: 40, needles: 3 });
    const [digest, truncate] = await runEngines({
      messages: generated.messages,
      needles: generated.needles,
      engines: [{ name: "digest", spec: `exec:python3 ${DIGEST_ENGINE}` }, "truncate"],
      repeats: 0,
      counter,
      chat: models.chat,
      budgetTokens: 400,
    });
    assert.equal(digest.status, "ok", digest.reason ?? "");
    const window = digest.window!;
    assert.equal(window[1].role, "system");
    assert.equal(digest.needles.recall, 1, "every needle stands in the system digest");
    assert.equal(digest.qa?.recall, 1, JSON.stringify(digest.qa?.answers));
    assert.equal(truncate.qa?.recall, 0, "without the digest the needles are gone");
  } finally {
    await models.close();
  }
});

Deno.test("engines run --sample all: a row per conversation per engine, pooled F1 with a 95% CI, one question per prompt", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "run");
    const args = [
      "engines",
      "run",
      "--reference",
      "-q",
      "--repeats",
      "0",
      "--engine",
      "full",
      "--engine",
      "truncate",
    ];
    const run = await runCli([...args, "--transcript", FIXTURE, "--sample", "all", "--output", out]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /LoCoMo QA F1, pooled over every question of every conversation/);
    assert.match(run.stdout, / {2}full: 75\.5 \(7 questions, 2 conversations\)/);
    const results = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
    assert.deepEqual(
      results.engines.map((e: { engine: string; conversation: { sample_id: string } }) => [
        e.engine,
        e.conversation.sample_id,
      ]),
      [["full", "small-1"], ["truncate", "small-1"], ["full", "small-2"], ["truncate", "small-2"]],
    );
    assert.deepEqual(results.conversations, [{ sample: 0, sample_id: "small-1" }, {
      sample: 1,
      sample_id: "small-2",
    }]);
    assert.equal(results.engines[2].probes.f1, 1);
    const pooledFull = results.pooled.find((p: { engine: string }) => p.engine === "full");
    assert.equal(pooledFull.questions, 7);
    assert.equal(pooledFull.conversations, 2);
    assert.equal(pooledFull.f1, (3 + 2 / 7 + 2) / 7);
    const protocol = JSON.parse(await Deno.readTextFile(join(out, "protocol.json")));
    assert.equal(protocol.questions_per_prompt, 1);
    assert.deepEqual(protocol.samples, [0, 1]);
    const stats = JSON.parse(await Deno.readTextFile(join(out, "stats.json")));
    const ci = stats.locomo.pooled.find((p: { engine: string }) => p.engine === "full").f1;
    assert.equal(ci.n, 7);
    assert.ok(ci.lo <= ci.mean && ci.mean <= ci.hi && ci.lo < ci.hi, JSON.stringify(ci));
    const report = await Deno.readTextFile(join(out, "REPORT.md"));
    assert.match(report, /### LoCoMo QA \(answer F1\)/);
    assert.match(report, /\| full \[small-2 #1\] \| 25% \| 2 \| 100\.0 /);
    assert.match(report, /Questions: one per prompt/);
    const verify = await runCli(["verify", "--rederive", out]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    // compare keeps the conversations apart and shows their F1.
    const compared = await runCli(["compare", out, out]);
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(compared.stdout, /full \[small-2 #1\]\s+f1 \(points\)\s+100\.0\s+100\.0\s+0\.0/);

    // --sample K picks conversations; out of range or mixed with all is refused before anything is written.
    const one = join(dir, "one");
    const second = await runCli([...args, "--transcript", FIXTURE, "--sample", "1", "--output", one]);
    assert.equal(second.code, 0, second.stderr);
    const oneRows = JSON.parse(await Deno.readTextFile(join(one, "results.json"))).engines;
    assert.deepEqual(oneRows.map((e: { conversation: { sample: number } }) => e.conversation.sample), [1, 1]);
    for (
      const [values, message] of [
        [["5"], /--sample 5: .* holds 2 conversations \(indices 0-1\)/],
        [["all", "0"], /--sample all takes every conversation; give it alone/],
        [["x"], /--sample "x": expected a conversation index/],
        [["1", "1"], /--sample 1 is given twice/],
      ] as const
    ) {
      const bad = join(dir, `bad-${values.join("-")}`);
      const refused = await runCli([
        ...args,
        "--transcript",
        FIXTURE,
        ...values.flatMap((v) => ["--sample", v]),
        "--output",
        bad,
      ]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, message);
      await assert.rejects(Deno.stat(bad), Deno.errors.NotFound);
    }
    const generated = await runCli([...args, "--sample", "all", "--output", join(dir, "gen")]);
    assert.equal(generated.code, 2);
    assert.match(generated.stderr, /--sample.*only used with --transcript/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
