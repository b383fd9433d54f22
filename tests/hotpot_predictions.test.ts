/**
 * `hotpot predictions`: a finished run's condition exported as an official prediction file (and its questions
 * as official gold records) is re-scored by `hotpot score` to exactly the run's own mean over that slice of its
 * rows; invalid answers are left out (scored zero, as the run did); bad requests name the option.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { METRIC_NAMES } from "../src/suites/hotpot/run/scoring.ts";
import { predictionsOf } from "../src/cli/hotpot/predictions.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "hotpot_predictions_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

type Row = {
  question_id: string;
  method: string;
  generation: number;
  answer_index: number;
  status: string;
  prediction: { answer: string; sp: [string, number][] } | null;
  metrics: Record<string, number>;
};

Deno.test("an exported prediction file scores what the run's rows say, metric by metric", async () => {
  const collect = await runCli(["hotpot", "collect", "-q", "--questions", "6", "--output", join(dir, "c")]);
  assert.equal(collect.code, 0, collect.stderr);
  const run = join(dir, "r");
  const ran = await runCli([
    "hotpot",
    "run",
    "--reference",
    "-q",
    "--corpus",
    join(dir, "c", "corpus.json"),
    "--output",
    run,
  ]);
  assert.equal(ran.code, 0, ran.stderr);
  const rows: Row[] = JSON.parse(await Deno.readTextFile(join(run, "results.json")));
  const gold = join(dir, "gold.json");
  for (
    const [method, generation, answer] of [["jev", 1, 0], ["full", 0, 1], ["jev+summary", 0, 0]] as const
  ) {
    const pred = join(dir, `${method}-${generation}-${answer}.json`);
    const exported = await runCli([
      "hotpot",
      "predictions",
      run,
      "--method",
      method,
      "--generation",
      String(generation),
      "--answer",
      String(answer),
      "--output",
      pred,
      ...(method === "jev" ? ["--gold-output", gold] : []),
    ]);
    assert.equal(exported.code, 0, exported.stderr);
    const file = JSON.parse(await Deno.readTextFile(pred));
    assert.deepEqual(Object.keys(file).sort(), ["answer", "sp"]);
    const slice = rows.filter((r) =>
      r.method === method && r.generation === generation && r.answer_index === answer
    );
    assert.equal(slice.length, 6);
    for (const row of slice.filter((r) => r.status === "ok")) {
      assert.equal(file.answer[row.question_id], row.prediction!.answer);
      assert.deepEqual(file.sp[row.question_id], row.prediction!.sp);
    }
    const scored = await runCli(["hotpot", "score", "--gold", gold, "--pred", pred]);
    assert.equal(scored.code, 0, scored.stderr);
    const metrics = JSON.parse(scored.stdout);
    for (const name of METRIC_NAMES) {
      const mean = slice.reduce((sum, r) => sum + r.metrics[name], 0) / slice.length;
      assert.ok(
        Math.abs(metrics[name] - mean) < 1e-12,
        `${method} ${name}: scored ${metrics[name]}, run ${mean}`,
      );
    }
  }
  const goldRecords = JSON.parse(await Deno.readTextFile(gold));
  assert.equal(goldRecords.length, 6);
  assert.deepEqual(Object.keys(goldRecords[0]).sort(), [
    "_id",
    "answer",
    "context",
    "level",
    "question",
    "supporting_facts",
    "type",
  ]);

  const again = await runCli([
    "hotpot",
    "predictions",
    run,
    "--method",
    "jev",
    "--output",
    join(dir, "jev-1-0.json"),
  ]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /--output .* already exists/);
  const unknown = await runCli([
    "hotpot",
    "predictions",
    run,
    "--method",
    "nope",
    "--output",
    join(dir, "n.json"),
  ]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no row of method nope.*the run has methods full, jev, summary, jev\+summary/);
});

Deno.test("predictionsOf leaves invalid answers out and picks the ceiling of a sweep", () => {
  const row = (id: string, cap: number | null, status = "ok") => ({
    question_id: id,
    method: "jev",
    generation: 0,
    answer_index: 0,
    status,
    input_cap: cap,
    prediction: status === "ok" ? { answer: `a-${id}-${cap}`, sp: [["T", 1]] as [string, number][] } : null,
  });
  const rows = [row("q1", 2400), row("q1", 3600), row("q2", 2400, "invalid"), row("q2", 3600)];
  const first = predictionsOf(rows, { method: "jev", generation: 0, answer: 0 });
  // The maps are prototype-free (a question id `__proto__` is a plain key): compare their entries.
  assert.deepEqual({ ...first.answer }, { q1: "a-q1-2400" });
  assert.deepEqual(first.missing, ["q2"]);
  const second = predictionsOf(rows, { method: "jev", generation: 0, answer: 0, inputCap: 3600 });
  assert.deepEqual({ ...second.answer }, { q1: "a-q1-3600", q2: "a-q2-3600" });
  assert.throws(
    () => predictionsOf(rows, { method: "jev", generation: 0, answer: 0, inputCap: 5 }),
    /2400, 3600/,
  );
});
