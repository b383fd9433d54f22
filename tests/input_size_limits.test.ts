/**
 * Per-kind size limits of small JSON inputs (src/fs_input.ts's INPUT_MAX_BYTES): a file past its kind's limit
 * is refused from its size before it is read, naming the option, the file and both sizes (exit 2, nothing written). A
 * sparse file makes the size without writing the bytes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { INPUT_MAX_BYTES } from "../src/fs_input.ts";
import { loadPredictionFile } from "../src/cli/hotpot/score.ts";
import { readHermesProbes } from "../src/data/transcripts/hermes_probes.ts";
import { UsageError } from "../src/errors.ts";
import { runCli } from "./helpers/spawn.ts";

/** A file of `size` bytes that starts like JSON (the rest is a sparse hole). */
async function bigFile(path: string, size: number): Promise<void> {
  await Deno.writeTextFile(path, '{"answer": {}, "sp": {}}');
  await Deno.truncate(path, size);
}

Deno.test("a prediction file one byte past its limit is refused before reading, naming --pred and the sizes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "pred.json");
    const limit = INPUT_MAX_BYTES.predictions;
    await bigFile(path, limit + 1);
    await assert.rejects(
      loadPredictionFile(path),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message === `--pred ${path}: ${limit + 1} bytes, more than the ${limit} allowed`,
    );
    // At the limit it is read: the NUL bytes of the hole make it invalid JSON, named as such.
    await Deno.truncate(path, limit);
    await assert.rejects(loadPredictionFile(path), /--pred .*: not valid JSON/);
    const gold = join(dir, "gold.json");
    await Deno.writeTextFile(gold, "[]");
    await Deno.truncate(path, limit + 1);
    const cli = await runCli(["hotpot", "score", "--pred", path, "--gold", gold]);
    assert.equal(cli.code, 2, cli.stdout + cli.stderr);
    assert.match(
      cli.stderr,
      new RegExp(`--pred .*pred\\.json: ${limit + 1} bytes, more than the ${limit} allowed`),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a probe file past its limit is refused naming --probes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "probes.json");
    await bigFile(path, INPUT_MAX_BYTES.probes + 1);
    await assert.rejects(
      readHermesProbes(path),
      /^UsageError: --probes .*probes\.json: \d+ bytes, more than the \d+ allowed/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
