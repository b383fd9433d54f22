/**
 * A method whose every condition is invalid (an outside engine that hands back the whole history, over the
 * evidence budget) scores zero everywhere: in the results table, in its intervals (gold SP kept included) and
 * in its paired rows, which are marked "not a finding" instead of being printed as one; the report says why.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";
import { invalidReasons, invalidReasonsSections } from "../src/suites/hotpot/report/report.ts";
import { sectionMarkdown } from "../src/report/html.ts";

/** An `exec:` engine that compacts nothing: it answers with the messages it was given. */
const KEEP_ALL = `
import json, sys
json.dump({"messages": json.load(sys.stdin)["messages"]}, sys.stdout)
`;

Deno.test("a mostly invalid method counts zero in its intervals and its paired rows are not findings", async () => {
  const dir = await Deno.makeTempDir({ prefix: "hotpot-paired-invalid-" });
  try {
    const script = join(dir, "keep_all.py");
    await Deno.writeTextFile(script, KEEP_ALL);
    const collect = await runCli(["hotpot", "collect", "-q", "--questions", "4", "--output", join(dir, "c")]);
    assert.equal(collect.code, 0, collect.stderr);
    const out = join(dir, "run");
    const run = await runCli([
      "hotpot",
      "run",
      "--reference",
      "-q",
      "--corpus",
      join(dir, "c", "corpus.json"),
      "--methods",
      "full,jev+summary",
      "--method",
      `keepall=exec:python3 ${script}`,
      "--output",
      out,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const aggregate = JSON.parse(await Deno.readTextFile(join(out, "aggregate.json")));
    const keepAll = aggregate.find((a: { method: string }) => a.method === "keepall");
    assert.equal(keepAll.valid, 0, "the whole history is over the evidence budget");
    assert.equal(keepAll.sp_survival, 0);
    const rows = JSON.parse(await Deno.readTextFile(join(out, "results.json")));
    const kept = rows.filter((r: { method: string; sp_survival: number | null }) =>
      r.method === "keepall" && (r.sp_survival ?? 0) > 0
    );
    assert.ok(kept.length > 0, "the invalid contexts do hold gold sentences (what must not be counted)");

    const stats = JSON.parse(await Deno.readTextFile(join(out, "stats.json")));
    const intervals = stats.methods.find((m: { method: string }) => m.method === "keepall").intervals;
    assert.equal(intervals.gold_sp_kept.mean, 0, "centred on the results table's zero");
    assert.equal(intervals.gold_sp_kept.hi, 0);

    const report = await Deno.readTextFile(join(out, "REPORT.md"));
    const paired = report.slice(report.indexOf("### Paired differences"));
    assert.match(
      paired,
      /\| B vs A \| metric \| pairs \| A \| B \| B − A \(95% CI\) \| p \(sign-flip\) \| MDE 80% \| note \|/,
    );
    const lines = paired.split("\n").filter((l) =>
      l.startsWith("| keepall vs ") || l.includes(" vs keepall |")
    );
    assert.ok(lines.length >= 3, paired);
    for (const line of lines) {
      assert.match(line, /not a finding: mostly invalid conditions \(keepall 100% invalid\) \|$/);
    }
    const honest = paired.split("\n").find((l) => l.startsWith("| jev+summary vs full | EM |"));
    assert.ok(honest?.endsWith("|  |"), `a valid comparison has no note: ${honest}`);
    const why = report.slice(report.indexOf("### Invalid conditions"), report.indexOf("### 95% CI"));
    assert.match(
      why,
      /\| keepall \| 16\/16 \| over budget \| over budget: \d+ tokens > \d+ \(recorded, never shrunk\) \|/,
    );
    assert.doesNotMatch(why, /\| (full|jev\+summary) \|/, "valid methods have no row");
    const html = await Deno.readTextFile(join(out, "report.html"));
    assert.match(html, /<h3>Invalid conditions<\/h3>/);
    assert.match(html, /not a finding: mostly invalid conditions \(keepall 100% invalid\)/);
    const verify = await runCli(["verify", out]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("invalid reasons are grouped by kind per method, most frequent first, each on one line", () => {
  const rows = [
    { method: "a", status: "ok" as const, reason: null },
    {
      method: "a",
      status: "invalid" as const,
      reason: "over budget: 3633 tokens > 3536 (recorded, never shrunk)",
    },
    {
      method: "a",
      status: "invalid" as const,
      reason: "over budget: 3700 tokens > 3536 (recorded, never shrunk)",
    },
    { method: "a", status: "invalid" as const, reason: "failed call: HTTP 500 |\nbody\ttext" },
    { method: "b", status: "ok" as const, reason: null },
    { method: "c", status: "invalid" as const, reason: null },
  ];
  const reasons = invalidReasons(rows);
  assert.deepEqual(reasons.map((r) => [r.method, r.kind, r.count, r.planned]), [
    ["a", "over budget", 2, 4],
    ["a", "failed call", 1, 4],
    ["c", "no reason given", 1, 1],
  ]);
  assert.equal(reasons[0].example, "over budget: 3633 tokens > 3536 (recorded, never shrunk)");
  const markdown = invalidReasonsSections(reasons).map(sectionMarkdown).join("");
  assert.match(markdown, /\| a \| 1\/4 \| failed call \| failed call: HTTP 500 \\\| body text \|/);
  assert.equal(invalidReasonsSections(invalidReasons(rows.filter((r) => r.status === "ok"))).length, 0);
});
