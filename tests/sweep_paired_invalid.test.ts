/**
 * The sweep's paired table marks a comparison whose contexts had mostly invalid answers (at the defaults,
 * S+Top3..5 are all over the ceiling) as "not a finding" instead of printing its difference as one; a
 * comparison of valid contexts has no note.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mostlyInvalidNote } from "../src/suites/sweep/report.ts";
import type { SweepStats } from "../src/suites/sweep/stats.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "sweep_paired_invalid_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("mostlyInvalidNote names the side whose answers were mostly invalid", () => {
  const stats = {
    kinds: [{ kind: "S", invalid: 0 }, { kind: "S+Top3", invalid: 1 }, { kind: "x", invalid: 0.5 }],
  };
  const s = stats as unknown as SweepStats;
  assert.equal(
    mostlyInvalidNote(s, "S", "S+Top3"),
    "not a finding: mostly invalid answers (S+Top3 100% invalid)",
  );
  assert.equal(mostlyInvalidNote(s, "S", "x"), "");
});

Deno.test("a default sweep marks its all-over-the-ceiling comparisons, in REPORT.md and report.html", async () => {
  const out = join(dir, "s");
  const ran = await runCli(["sweep", "run", "--reference", "-q", "--output", out]);
  assert.equal(ran.code, 0, ran.stderr);
  const report = await Deno.readTextFile(join(out, "REPORT.md"));
  const rows = report.split("\n").filter((line) => /^\| S\+Top\d vs S \| fact score/.test(line));
  assert.ok(rows.length >= 3, report);
  const stats = JSON.parse(await Deno.readTextFile(join(out, "stats.json")));
  for (const row of rows) {
    const kind = /^\| (S\+Top\d) vs S/.exec(row)![1];
    const invalid = stats.kinds.find((k: { kind: string }) => k.kind === kind).invalid;
    assert.equal(row.includes("not a finding"), invalid > 0.5, row);
  }
  assert.ok(rows.some((row) => row.includes("not a finding")), "no comparison marked at the defaults");
  assert.ok(rows.some((row) => row.endsWith("|  |") || row.endsWith("| |")), "every comparison marked");
  assert.match(await Deno.readTextFile(join(out, "report.html")), /not a finding: mostly invalid answers/);
});
