/**
 * Subprocess for the group-commit test: `deno run … tests/helpers/sync_rounds.ts DIR LARGE_ROUNDS` creates a
 * run at DIR, records one node naming 3 blobs (a round below `SYNCFS_MIN_BLOBS`), then LARGE_ROUNDS times
 * writes `SYNCFS_MIN_BLOBS + 8` blobs and records 3 nodes naming them at once (their syncs share one round),
 * then, while a last large round is under way, writes two groups of `SYNCFS_MIN_BLOBS / 2 + 1` blobs, each
 * recorded by a node as soon as written (both wait for the round under way, then share the next: one large
 * round), and seals the run. It prints the number of nodes. The test runs it with a `sync` of its own on PATH
 * that logs how it was called.
 *
 * @module
 */
import { SYNCFS_MIN_BLOBS } from "../../src/store/blob_store.ts";
import { type Node, nodeKey } from "../../src/store/manifest.ts";
import { RunDir } from "../../src/store/run_dir.ts";
import { testHeader } from "./header.ts";

function node(i: number, outputs: Record<string, string>): Node {
  return {
    key: nodeKey("s", 1, { i }, {}),
    label: `s ${i}`,
    stage: "s",
    version: 1,
    params: { i },
    inputs: {},
    outputs,
    requests: [],
    usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
    started: "2026-01-01T00:00:00.000Z",
    finished: "2026-01-01T00:00:00.000Z",
    status: "ok",
  };
}

if (import.meta.main) {
  const [dir, large] = Deno.args;
  const run = await RunDir.create(dir, testHeader());
  let n = 0;
  const small: Record<string, string> = {};
  for (let i = 0; i < 3; i++) small[`o${i}`] = await run.store.putJson({ small: i });
  await run.recordNode(node(n++, small));
  for (let round = 0; round < Number(large); round++) {
    const outputs: Record<string, string> = {};
    for (let i = 0; i < SYNCFS_MIN_BLOBS + 8; i++) outputs[`o${i}`] = await run.store.putJson({ round, i });
    await Promise.all([0, 1, 2].map(() => run.recordNode(node(n++, outputs))));
  }
  const first: Record<string, string> = {};
  for (let i = 0; i < SYNCFS_MIN_BLOBS; i++) first[`o${i}`] = await run.store.putJson({ first: i });
  const recorded = [run.recordNode(node(n++, first))];
  for (let group = 0; group < 2; group++) {
    const outputs: Record<string, string> = {};
    for (let i = 0; i <= SYNCFS_MIN_BLOBS / 2; i++) outputs[`o${i}`] = await run.store.putJson({ group, i });
    recorded.push(run.recordNode(node(n++, outputs)));
  }
  await Promise.all(recorded);
  await run.finish();
  console.log(n);
}
