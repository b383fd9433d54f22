/**
 * `compaction-bench merge OUT RUN...`: joins finished shards into a new run and recomputes its exported files.
 * @module
 */
import { UsageError } from "../errors.ts";
import { programIdentity } from "../program_identity.ts";
import { planMerge, writeMerged } from "../store/merge.ts";
import { readManifest, type RunDir } from "../store/run_dir.ts";
import { suiteNamed, SUITES } from "../suites/registry.ts";
import { parseOptions, printHelp, refuseExisting } from "./args.ts";
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

export async function mergeCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("merge", argv, {});
  if (options.help) return printHelp(HELP);
  const [out, ...runs] = positionals;
  if (out === undefined || runs.length === 0) {
    throw new UsageError(`merge: expected OUT RUN... (see '${CLI} merge --help')`);
  }
  const suite = (await readManifest(runs[0])).suite;
  const publisher = suiteNamed(suite)?.merge;
  if (publisher === undefined) {
    throw new UsageError(
      `merge: '${suite}' runs cannot be merged (mergeable: ${MERGEABLE})`,
    );
  }
  const plan = await planMerge(runs, publisher.skipStages);
  await refuseExisting(
    out,
    `merge: output directory ${out} already exists; a run never reuses or overwrites one`,
  );
  let run: RunDir | undefined;
  try {
    // The exports are this program's (recorded), with the first shard's options (e.g. --bootstrap).
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
    await run?.abandon();
    if (run !== undefined) await Deno.remove(out, { recursive: true });
    throw error;
  }
}
