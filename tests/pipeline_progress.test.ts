/**
 * Progress on stderr: when stderr is not a terminal, one plain line per stage when its planned work is done,
 * counting executions that the executor served from its memo, with the suite prefix dropped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Executor } from "../src/pipeline/executor.ts";
import { Progress } from "../src/pipeline/progress.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { testHeader } from "./helpers/header.ts";

Deno.test("progress prints one line per finished stage, memo hits included, without the suite prefix", async () => {
  const dir = await Deno.makeTempDir();
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    const run = await RunDir.create(join(dir, "run"), testHeader());
    // The suite gives its stages' display names (the life cycle passes the suite's own).
    const progress = new Progress("hotpot", { live: false, names: (stage) => stage.replace(/^hotpot-/, "") });
    const executor = new Executor(run, { progress });
    progress.plan("hotpot-context", 3);
    const call = { stage: "hotpot-context", version: 1, label: "c", params: { n: 1 }, inputs: {} };
    await Promise.all(
      [0, 1, 2].map(() => executor.execute(call, () => Promise.resolve({ outputs: { x: 1 } }))),
    );
    assert.equal(executor.counts.executed, 1);
    assert.equal(executor.counts.memo, 2);
    assert.deepEqual(lines, ["hotpot: context 3/3 done"]);
    await run.finish();
  } finally {
    console.error = original;
    await Deno.remove(dir, { recursive: true });
  }
});
