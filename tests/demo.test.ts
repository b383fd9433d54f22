/**
 * The offline demo end to end, with the demo task's own (least-privilege) permissions: every suite runs on
 * the embedded fixtures and the reference model, every run verifies, and the reports say what they must.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./helpers/spawn.ts";

Deno.test("the demo completes offline with the demo task's permissions and every run verifies", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "demo-test-" });
  const out = join(tmp, "demo");
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const task: string = config.tasks.demo;
  const args = task.split(/\s+/).slice(1); // drop "deno"
  const output = await new Deno.Command(Deno.execPath(), {
    args: [...args, "--output", out, "--quiet"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr + stdout);
  assert.equal((stdout.match(/ok: every check holds/g) ?? []).length, 5, stdout);

  const hotpot = await Deno.readTextFile(join(out, "hotpot", "REPORT.md"));
  for (const method of ["full", "jev", "summary", "jev+summary"]) {
    assert.match(hotpot, new RegExp(`^\\| ${method.replace("+", "\\+")} \\|.*\\| \\d+/120 \\|`, "m"));
  }
  assert.match(hotpot, /Reference model/);
  assert.match(hotpot, /Predeclared hypothesis/);
  assert.match(hotpot, /compression calls/);

  const sweep = await Deno.readTextFile(join(out, "sweep", "REPORT.md"));
  for (const kind of ["full", "S", "S+Top1", "S+Top5"]) {
    assert.match(sweep, new RegExp(`^\\| ${kind.replace("+", "\\+")} \\|`, "m"));
  }
  const frozen = JSON.parse(await Deno.readTextFile(join(out, "sweep-frozen", "manifest.json")));
  const compression = frozen.nodes.filter((n: { stage: string }) =>
    n.stage === "sweep-summary" || n.stage === "sweep-rank"
  );
  assert.equal(compression.length, 10);
  assert.ok(compression.every((n: { reused_from?: unknown }) => n.reused_from !== undefined));

  const engines = JSON.parse(await Deno.readTextFile(join(out, "engines", "results.json")));
  assert.deepEqual(
    engines.engines.map((e: { engine: string }) => e.engine),
    ["full", "truncate", "hermes-like", "summary", "jev", "jev+summary"],
  );
  await Deno.remove(tmp, { recursive: true });
});
