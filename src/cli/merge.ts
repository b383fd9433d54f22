/**
 * `compaction-bench merge OUT RUN...`: joins the finished shards of one protocol (`--shard K/N`) into a new
 * run at OUT, then recomputes the suite's exported files (results, aggregate, reports) on the merged nodes,
 * with the same code a whole run uses, and seals it. Every refusal exits 2 and writes nothing.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { programIdentity } from "../program_identity.ts";
import { planMerge, writeMerged } from "../store/merge.ts";
import { readManifest, type RunDir } from "../store/run_dir.ts";
import { suiteNamed, SUITES } from "../suites/registry.ts";
import { parseCommand } from "./args.ts";
import { CLI } from "../core/program_name.ts";

const MERGEABLE = SUITES.filter((s) => s.merge !== undefined).map((s) => s.name).join(", ");

const HELP = `${CLI} merge OUT RUN...

Joins finished shards of one protocol (runs made with --shard K/N, e.g. as array jobs on several machines)
into a new run OUT: blobs by hash, nodes by key, each shard's manifest hash recorded in the header; then the
results, aggregate and reports are recomputed from the merged nodes. The merged run's results.json and
aggregate.json equal those of the same run done unsharded, and it verifies.

Refused (exit 2, nothing written): an existing OUT, runs that are not finished shards, shards of different
suites, programs, protocols, tokenizers or corpora, duplicate or missing parts, and nodes with the same key
but different outputs.

Suites: ${MERGEABLE} (the suite is replayed over the merged nodes; no model is called).`;

/** Runs `merge`; returns the exit code. */
export async function mergeCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseCommand(
    "merge",
    argv,
    {},
    z.object({ help: z.boolean().optional() }),
  );
  if (options.help) {
    console.log(HELP);
    return 0;
  }
  const [out, ...runs] = positionals;
  if (out === undefined || runs.length === 0) {
    throw new UsageError(`merge: expected OUT RUN... (see '${CLI} merge --help')`);
  }
  const suite = await suiteOfFirst(runs[0]);
  const publisher = suiteNamed(suite)?.merge;
  if (publisher === undefined) {
    throw new UsageError(
      `merge: '${suite}' runs cannot be merged (mergeable: ${MERGEABLE})`,
    );
  }
  const plan = await planMerge(runs, publisher.skipStages);
  await assertAbsent(out);
  let run: RunDir | undefined;
  try {
    // The shards' program made the nodes (the header says so); the exports are this program's: record it,
    // and the options the first shard was given (report options such as --bootstrap that the exports follow).
    run = await writeMerged(out, plan, ["merge", out, ...runs], {
      merging_program: await programIdentity(),
      shard_options: plan.shards[0].manifest.invocation.options,
    });
    await publisher.publish(run);
    const { hash } = await run.finish();
    console.log(`merged ${plan.shards.length} shard(s), ${plan.nodes.length} node(s) into ${out}`);
    console.log(`manifest sha256 ${hash}`);
    return 0;
  } catch (error) {
    // The directory was created by this command: a merge that fails leaves nothing behind.
    await run?.abandon();
    if (run !== undefined) await Deno.remove(out, { recursive: true });
    throw error;
  }
}

/** The suite named in the first run's manifest (read and checked in full by {@link planMerge}). */
async function suiteOfFirst(path: string): Promise<string> {
  return (await readManifest(path)).suite;
}

async function assertAbsent(out: string): Promise<void> {
  try {
    await Deno.lstat(out);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  throw new UsageError(`merge: output directory ${out} already exists; a run never reuses or overwrites one`);
}
