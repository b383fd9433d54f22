/**
 * What `verify --rederive` needs of sweep runs: the fixture of the run's `trajectory` source, the stages
 * replayed from their call records, and the check of the compression usage its aggregate and report record.
 * @module
 */
import type { Manifest, Node } from "../../store/manifest.ts";
import { canonicalJson } from "../../store/canonical.ts";
import type { SuiteRederivation } from "../suite.ts";
import { ownUsage, sameUsage } from "../usage_sums.ts";
import { sweepAnswerStage } from "./stages/answer.ts";
import { sweepFixtureFromSources } from "./fixture.ts";
import { sweepRankStage, sweepSummaryStage } from "./stages/compress.ts";
import { sweepAggregateStage } from "./stages/aggregate.ts";
import { sweepEngineStage } from "./stages/engine.ts";

/** The compression usage a sweep node records: the sum of every summary, ranking and engine node's. */
function compressionUsageProblems(manifest: Manifest): { node: Node; message: string }[] {
  const out: { node: Node; message: string }[] = [];
  const nodes = manifest.nodes;
  const total = ownUsage(
    nodes.filter((n) =>
      [sweepSummaryStage.name, sweepRankStage.name, sweepEngineStage.name].includes(n.stage)
    ),
  );
  for (const node of nodes) {
    const recorded = (node.params as { compression_usage?: unknown }).compression_usage;
    if (recorded === undefined || !node.stage.startsWith("sweep-")) continue;
    if (!sameUsage(recorded, total)) {
      out.push({
        node,
        message: `compression_usage ${canonicalJson(recorded)} is not the sum of the summary, ranking and ` +
          `engine nodes' usage ${canonicalJson(total)}`,
      });
    }
  }
  return out;
}

/** `sweep run`. */
export const SWEEP_REDERIVATION: SuiteRederivation = {
  async environment(manifest, store) {
    const fixture = manifest.sources["trajectory"]
      ? await sweepFixtureFromSources(
        async (name) => manifest.sources[name] ? await store.get(manifest.sources[name]) : undefined,
        "the run",
      )
      : undefined;
    return { fixture };
  },
  compressionStages: [sweepSummaryStage, sweepRankStage],
  answerStages: [sweepAnswerStage],
  usageProblems: compressionUsageProblems,
  answering: { aggregate: sweepAggregateStage.name, answers: sweepAnswerStage.name },
};
