/**
 * The engines suite: context engines head to head on one transcript.
 *
 * @module
 */
import type { Suite } from "../suite.ts";
import { enginesEngineStage } from "./stages/engine.ts";
import { enginesTranscriptStage } from "./stages/transcript.ts";
import { enginesAggregateStage } from "./stages/aggregate.ts";
import { enginesReportStage } from "./stages/report.ts";
import { ENGINES_METRICS } from "./metric_table.ts";

interface ComparedEngine {
  engine: string;
  budget?: string;
  savings_pct: number | null;
  needles: { recall: number | null };
  qa: { recall: number | null } | null;
  probes?: { f1?: number } | null;
  conversation?: { sample: number; sample_id: string | null };
  latency_ms: { cold: number | null; warm_median: number | null };
}

/** `engines run`. */
export const ENGINES_SUITE: Suite = {
  name: "engines",
  command: ["engines", "run"],
  title: "engines",
  stages: [
    enginesTranscriptStage,
    enginesEngineStage,
    enginesAggregateStage,
    enginesReportStage,
  ],
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
      out.set(several ? `${name} @ ${e.budget}` : name, {
        savings_pct: e.savings_pct,
        needle_recall: e.needles.recall,
        qa_recall: e.qa?.recall ?? null,
        // LoCoMo's answer F1 of the row's LoCoMo questions, when it has some.
        ...(e.probes?.f1 !== undefined ? { f1: e.probes.f1 } : {}),
        cold_ms: e.latency_ms.cold,
        warm_median_ms: e.latency_ms.warm_median,
      });
    }
    return out;
  },
  // The engines CLI prints its table itself (the lines of the run's outcome).
  summary: () => [],
};
