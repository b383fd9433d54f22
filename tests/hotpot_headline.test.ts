/**
 * What a person reads first about a hotpot run (src/suites/hotpot/report/headline.ts): the hypothesis's verdict
 * in lines that fit 80 columns, with the four EMs and the gap to Full, and the warnings that a run tests nothing
 * (the ceiling did not bind for most questions; most conditions of a method invalid).
 */
import assert from "node:assert/strict";
import { hotpotWarnings, hypothesisLines } from "../src/suites/hotpot/report/report.ts";
import { hotpotSummaryLines } from "../src/suites/hotpot/definition.ts";

const agg = (
  method: string,
  em: string,
  extra: { valid?: number; planned?: number; over_cap?: number } = {},
) => ({
  method,
  em_exact: em,
  valid: extra.valid ?? 20,
  planned: extra.planned ?? 20,
  over_cap: extra.over_cap ?? 0,
});

Deno.test("the verdict states the claim, the four EMs with the gap, and the verdict last, in 80 columns", () => {
  const holds = hypothesisLines([
    agg("full", "11/20"),
    agg("jev", "9/20"),
    agg("summary", "9/20"),
    agg("jev+summary", "1/2"),
  ]);
  assert.deepEqual(holds, [
    "hypothesis: Jev+Summary beats Jev and Summary in EM, within 5 points of Full",
    "  EM: Jev+Summary 50.0, Jev 45.0, Summary 45.0, Full 55.0; 5.0 below Full",
    "  verdict (descriptive): holds",
  ]);
  const fails = hypothesisLines([
    agg("full", "3/4"),
    agg("jev", "1/2"),
    agg("summary", "3/5"),
    agg("jev+summary", "1/2"),
  ]);
  assert.equal(
    fails[2],
    "  verdict (descriptive): does not hold (does not beat both; > 5 below Full)",
  );
  const above = hypothesisLines([
    agg("full", "1/2"),
    agg("jev", "0"),
    agg("summary", "0"),
    agg("jev+summary", "3/5"),
  ]);
  assert.match(above[1], /; 10\.0 above Full$/);
  assert.match(hypothesisLines([agg("full", "1")]).at(-1)!, /verdict: not evaluated/);
  for (const line of [...holds, ...fails, ...above]) assert.ok(line.length <= 80, line);
});

Deno.test("warnings: the ceiling did not bind for most questions; most conditions of a method invalid", () => {
  const four = [
    agg("full", "1/2", { over_cap: 6 }),
    agg("jev", "1/2"),
    agg("summary", "1/2"),
    agg("jev+summary", "1/2"),
  ];
  assert.deepEqual(hotpotWarnings(four, 10, 3600), [], "6 of 10 bound: no warning");
  const loose = hotpotWarnings([{ ...four[0], over_cap: 4 }, ...four.slice(1)], 9, 3600);
  assert.equal(loose.length, 1);
  assert.match(
    loose[0],
    /^The ceiling did not bind for 5 of 9 questions: their Full context fits within 3600 tokens/,
  );
  assert.deepEqual(hotpotWarnings(four, null, 3600), [], "unknown question count: no ceiling warning");
  const invalid = hotpotWarnings(
    [agg("full", "1", { over_cap: 10 }), agg("jev", "0", { valid: 10 })],
    10,
    3600,
  );
  assert.deepEqual(invalid, [], "exactly half invalid is not most");
  const most = hotpotWarnings([agg("full", "1", { over_cap: 10 }), agg("jev", "0", { valid: 8 })], 10, 3600);
  assert.equal(most.length, 1);
  assert.match(most[0], /^Most conditions of jev were invalid \(12 of 20\).*not a finding/);
});

Deno.test("the terminal summary: warnings first, a line per condition, the verdict last", () => {
  const row = (method: string, em: number, extra: Record<string, unknown> = {}) => ({
    method,
    em_exact: String(em),
    metrics: { em, f1: em, joint_f1: em },
    valid: 4,
    planned: 4,
    over_cap: 0,
    ...extra,
  });
  const text = JSON.stringify([
    row("full", 1),
    row("jev", 0, { valid: 0 }),
    row("summary", 0),
    row("jev+summary", 1),
  ]);
  const lines = hotpotSummaryLines(text, { questions: 2, inputCap: 3600 });
  assert.match(lines[0], /^warning: The ceiling did not bind for 2 of 2 questions/);
  assert.match(lines[1], /^warning: Most conditions of jev were invalid \(4 of 4\)/);
  assert.match(lines.find((l) => l.startsWith("jev "))!, /EM {3}0\.0 .* valid 0\/4$/);
  assert.match(lines.at(-1)!, /^ {2}verdict \(descriptive\): holds$/);
  // A ceiling sweep: the verdict of its first ceiling's rows, said so.
  const swept = JSON.stringify([
    row("full", 1, { input_cap: null }),
    ...[2400, 3600].flatMap((cap) => [
      row("jev", cap === 2400 ? 0 : 1, { input_cap: cap }),
      row("summary", 0, { input_cap: cap }),
      row("jev+summary", 1, { input_cap: cap }),
    ]),
  ]);
  const sweepLines = hotpotSummaryLines(swept, { questions: 2, inputCap: 2400 });
  assert.ok(sweepLines.includes("  at the 2400-token ceiling (the sweep's first)"));
  assert.match(
    sweepLines.at(-1)!,
    /verdict \(descriptive\): holds$/,
    "jev 0 at 2400: fusion beats both there",
  );
  // Without the question count (a merged run's summary), no ceiling warning.
  assert.equal(
    hotpotSummaryLines(text, { questions: null }).filter((l) => l.startsWith("warning")).length,
    1,
  );
});
