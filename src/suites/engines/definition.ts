/**
 * The engines suite: context engines head to head on one transcript.
 * @module
 */
import type { Suite } from "../suite.ts";
import { enginesEngineStage } from "./stages/engine.ts";
import { enginesTranscriptStage } from "./stages/transcript.ts";
import { enginesAggregateStage } from "./stages/aggregate.ts";
import { enginesReportStage } from "./stages/report.ts";
import { type ComparedEngine, ENGINES_METRICS } from "./metric_table.ts";

/** `engines run`. */
export const ENGINES_SUITE: Suite = {
  name: "engines",
  command: ["engines", "run"],
  title: "engines",
  stages: [enginesTranscriptStage, enginesEngineStage, enginesAggregateStage, enginesReportStage],
  aggregate: enginesAggregateStage,
  report: enginesReportStage,
  // An engine row's answering models are its engine node's chat and System One records (`verify --rederive`).
  rederive: { answering: { aggregate: enginesAggregateStage.name, engines: enginesEngineStage.name } },
  metrics: ENGINES_METRICS,
  compareMetrics({ results }) {
    const out = new Map<string, Record<string, number | null>>();
    const { engines, budgets } = results as { engines: ComparedEngine[]; budgets?: unknown[] };
    const several = (budgets?.length ?? 1) > 1;
    for (const e of engines) {
      // A --sample run has a row per conversation: its key names it.
      const c = e.conversation;
      const name = c
        ? `${e.engine} [${c.sample_id !== null ? `${c.sample_id} ` : ""}#${c.sample}]`
        : e.engine;
      const values = ENGINES_METRICS.flatMap((m) => {
        const v = m.value(e);
        return v === undefined ? [] : [[m.name, v] as const];
      });
      out.set(several ? `${name} @ ${e.budget}` : name, Object.fromEntries(values));
    }
    return out;
  },
  // The engines CLI prints its table itself (the lines of the run's outcome).
  summary: () => [],
};
