/**
 * `--check-only` audits its frozen run: a frozen run with one altered blob fails the check (exit 1, naming the
 * verification problem) and nothing is written — even when the altered blob (here an answer's status) is
 * one that rebuilding the answer inputs would never read.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";

Deno.test("check-only fails on a frozen run with an altered blob it would not otherwise read, writing nothing", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "check-only-tamper-" });
  try {
    const frozen = join(tmp, "a");
    const small = ["--compressions", "1", "--answers", "1", "--top-n", "1", "-q"];
    const run = await runCli(["sweep", "run", "--reference", "--output", frozen, ...small]);
    assert.equal(run.code, 0, run.stderr);
    const intact = await runCli([
      "sweep",
      "run",
      "--check-only",
      "--frozen-run",
      frozen,
      "--output",
      join(tmp, "ok"),
      ...small,
    ]);
    assert.equal(intact.code, 0, intact.stdout + intact.stderr);

    const manifest = JSON.parse(await Deno.readTextFile(join(frozen, "manifest.json")));
    const status: string = manifest.nodes.find((n: { stage: string }) =>
      n.stage === "sweep-answer"
    ).outputs.status;
    const path = join(frozen, "objects", "sha256", status.slice(0, 2), status.slice(2));
    await Deno.chmod(path, 0o644);
    const bytes = await Deno.readFile(path);
    bytes[bytes.length >> 1] ^= 1;
    await Deno.writeFile(path, bytes);
    await Deno.chmod(path, 0o444); // only its content differs

    const out = join(tmp, "check");
    const checked = await runCli([
      "sweep",
      "run",
      "--check-only",
      "--frozen-run",
      frozen,
      "--output",
      out,
      ...small,
    ]);
    assert.equal(checked.code, 1, checked.stdout + checked.stderr);
    assert.match(checked.stderr, /--frozen-run .* does not verify \(1 problem\(s\); first: altered: blob /);
    assert.ok(checked.stderr.includes(status), "the altered blob is named");
    await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
