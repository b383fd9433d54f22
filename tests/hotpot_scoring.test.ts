import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hotpotScoreCommand, scoreHotpotFiles } from "../src/cli/hotpot/score.ts";
import { UsageError } from "../src/errors.ts";
import {
  answerExactMatch,
  answerF1,
  METRIC_NAMES,
  normalizeAnswer,
  parseModelAnswer,
  predictionFromModelAnswer,
  scoreQuestion,
  supportingFactScores,
} from "../src/suites/hotpot/run/scoring.ts";

const SHARED = fileURLToPath(new URL("./fixtures/shared_data/", import.meta.url));
const FIXTURES = fileURLToPath(new URL("./fixtures/hotpot/", import.meta.url));
const GOLD = {
  answer: "Kevin Spacey",
  supporting_facts: [{ title: "A", sent_id: 0 }, { title: "B", sent_id: 2 }],
};

Deno.test("normalization matches the official script on tricky inputs", async () => {
  const cases = JSON.parse(await Deno.readTextFile(join(FIXTURES, "normalize_cases.json")));
  for (const c of cases.normalize) {
    assert.equal(normalizeAnswer(c.input), c.normalized, JSON.stringify(c.input));
  }
  for (const c of cases.answers) {
    assert.equal(answerExactMatch(c.prediction, c.gold), c.em ? 1 : 0);
    const f = answerF1(c.prediction, c.gold);
    assert.deepEqual([f.f1, f.prec, f.recall], c.f1);
  }
});

Deno.test("answer metrics by hand: exact, partial, yes/no", () => {
  assert.equal(answerExactMatch("the Kevin Spacey.", "Kevin Spacey"), 1);
  const partial = answerF1("actor Kevin Spacey", "Kevin Spacey");
  assert.equal(partial.prec, 2 / 3);
  assert.equal(partial.recall, 1);
  assert.equal(partial.f1, 0.8);
  assert.deepEqual(answerF1("yes", "no"), { f1: 0, prec: 0, recall: 0 });
  assert.deepEqual(answerF1("yes indeed", "yes"), { f1: 0, prec: 0, recall: 0 });
  assert.deepEqual(answerF1("Yes.", "yes"), { f1: 1, prec: 1, recall: 1 });
  assert.deepEqual(answerF1("no", "Norway no"), { f1: 0, prec: 0, recall: 0 });
});

Deno.test("supporting facts by hand: sets, partial credit, malformed ids earn nothing", () => {
  const gold = GOLD.supporting_facts;
  assert.deepEqual(supportingFactScores([["A", 0], ["B", 2], ["A", 0]], gold), {
    em: 1,
    f1: 1,
    prec: 1,
    recall: 1,
  });
  const half = supportingFactScores([["A", 0], ["C", 1]], gold);
  assert.deepEqual(half, { em: 0, f1: 0.5, prec: 0.5, recall: 0.5 });
  for (const bad of [["B", true], ["B", 2.5], ["B", "2"], ["B"], ["B", 2, 3], "B:2", null]) {
    const s = supportingFactScores([["A", 0], bad], gold);
    assert.deepEqual(s, { em: 0, f1: 0.5, prec: 0.5, recall: 0.5 }, JSON.stringify(bad));
  }
  assert.deepEqual(supportingFactScores([], gold), { em: 0, f1: 0, prec: 0, recall: 0 });
});

Deno.test("joint metrics multiply answer and supporting-fact parts; a missing part scores zero", () => {
  const m = scoreQuestion({ answer: "actor Kevin Spacey", sp: [["A", 0], ["C", 1]] }, GOLD);
  assert.equal(m.joint_prec, (2 / 3) * 0.5);
  assert.equal(m.joint_recall, 1 * 0.5);
  assert.equal(m.joint_f1, (2 * m.joint_prec * m.joint_recall) / (m.joint_prec + m.joint_recall));
  assert.equal(m.joint_em, 0);
  const full = scoreQuestion({ answer: "Kevin Spacey", sp: [["B", 2], ["A", 0]] }, GOLD);
  assert.equal(full.joint_em, 1);
  const noSp = scoreQuestion({ answer: "Kevin Spacey" }, GOLD);
  assert.equal(noSp.em, 1);
  assert.equal(noSp.sp_f1, 0);
  assert.equal(noSp.joint_f1, 0);
  assert.deepEqual(Object.keys(noSp), [...METRIC_NAMES]);
});

Deno.test("model answers parse leniently: fenced, embedded, bare", () => {
  const fenced = 'Sure.\n```json\n{"answer": "Paris", "supporting_facts": [["France", 1]]}\n```\nDone.';
  assert.deepEqual(parseModelAnswer(fenced), {
    ok: true,
    answer: "Paris",
    supporting_facts: [["France", 1]],
  });
  const embedded = 'I think {"answer": "yes", "supporting_facts": [["A {x}", 0], ["B", "3"]]} is right';
  assert.deepEqual(parseModelAnswer(embedded), {
    ok: true,
    answer: "yes",
    supporting_facts: [["A {x}", 0], ["B", "3"]],
  });
  assert.deepEqual(parseModelAnswer('{"answer": 1755}'), { ok: true, answer: "1755", supporting_facts: [] });
  assert.equal(parseModelAnswer("Paris, I believe.").ok, false);
  assert.deepEqual(predictionFromModelAnswer("no json"), { answer: "", sp: [] });
  // Supporting facts that are not a list cost the supporting-fact credit, never the answer.
  for (const sp of ["null", '{"Paris": 1}', '"France 1"']) {
    assert.deepEqual(predictionFromModelAnswer(`{"answer": "Paris", "supporting_facts": ${sp}}`), {
      answer: "Paris",
      sp: [],
    });
  }
});

Deno.test("parsed answers score strictly: yes/no and malformed ids", () => {
  const gold = { answer: "yes", supporting_facts: [{ title: "A", sent_id: 0 }, { title: "B", sent_id: 3 }] };
  const m = scoreQuestion(
    predictionFromModelAnswer(
      '```json\n{"answer": "Yes", "supporting_facts": [["A", 0], ["B", "3"], ["B", true]]}\n```',
    ),
    gold,
  );
  assert.equal(m.em, 1);
  assert.equal(m.f1, 1);
  assert.equal(m.sp_prec, 1 / 3);
  assert.equal(m.sp_recall, 1 / 2);
  const decimal = scoreQuestion(
    predictionFromModelAnswer('{"answer": "no", "supporting_facts": [["B", 3.5]]}'),
    gold,
  );
  assert.equal(decimal.f1, 0);
  assert.equal(decimal.sp_f1, 0);
});

Deno.test("hotpot score agrees with the official script to 1e-9 on both gold layouts", async () => {
  const expected = JSON.parse(await Deno.readTextFile(join(FIXTURES, "real20_expected_metrics.json")));
  for (const gold of ["hotpot_dev_real20.official.json", "hotpot_dev_real20.hf.parquet"]) {
    const { metrics: got } = await scoreHotpotFiles(join(SHARED, gold), join(FIXTURES, "real20_pred.json"));
    assert.deepEqual(Object.keys(got), Object.keys(expected));
    for (const k of METRIC_NAMES) assert.ok(Math.abs(got[k] - expected[k]) <= 1e-9, `${gold} ${k}`);
  }
});

Deno.test("hotpot score command prints the metrics as JSON", async () => {
  const command = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { hotpotScoreCommand } from ${
        JSON.stringify(new URL("../src/cli/hotpot/score.ts", import.meta.url).href)
      };` +
      "Deno.exit(await hotpotScoreCommand(Deno.args));",
      "--",
      "--gold",
      join(SHARED, "hotpot_dev_real20.hf.parquet"),
      "--pred",
      join(FIXTURES, "real20_pred.json"),
    ],
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdout: "piped",
    stderr: "piped",
  });
  const out = await command.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const printed = JSON.parse(new TextDecoder().decode(out.stdout));
  const expected = JSON.parse(await Deno.readTextFile(join(FIXTURES, "real20_expected_metrics.json")));
  for (const k of METRIC_NAMES) assert.ok(Math.abs(printed[k] - expected[k]) <= 1e-9, k);
});

Deno.test("hotpot score rejects bad options and bad prediction files with UsageError", async () => {
  await assert.rejects(hotpotScoreCommand(["--gold", "x.json"]), /--pred FILE is required/);
  await assert.rejects(hotpotScoreCommand(["--bogus"]), UsageError);
  const dir = await Deno.makeTempDir();
  try {
    const pred = join(dir, "pred.json");
    await Deno.writeTextFile(pred, JSON.stringify({ answer: { a: 3 }, sp: {} }));
    await assert.rejects(
      hotpotScoreCommand(["--gold", join(SHARED, "hotpot_dev_real20.official.json"), "--pred", pred]),
      /pred\.json: field answer\.a: /,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.equal(await hotpotScoreCommand(["--help"]), 0);
});
