/**
 * The engines suite: context engines head to head on one transcript, and its metrics, declared once
 * (`compare` reads their table: its shares, and each engine row's values).
 * @module
 */
import type { Suite } from "../suite.ts";
import { enginesEngineStage } from "./stages/engine.ts";
import { enginesTranscriptStage } from "./stages/transcript.ts";
import { enginesAggregateStage } from "./stages/aggregate.ts";
import { enginesReportStage } from "./stages/report.ts";
import type { MetricSpec } from "../../analysis/metrics.ts";
import { conversationLabel } from "./report.ts";

/** What a metric reads of one engine row of results.json. */
export interface ComparedEngine {
  engine: string;
  budget?: string;
  savings_pct: number | null;
  needles: { recall: number | null };
  qa: { recall: number | null } | null;
  probes?: { f1?: number } | null;
  conversation?: { sample: number; sample_id: string | null };
  latency_ms: { cold: number | null; warm_median: number | null };
}

/** One engines metric: its declaration and its value in an engine row (undefined: the row has none). */
export interface EnginesMetric extends MetricSpec {
  value(e: ComparedEngine): number | null | undefined;
}

function metric(
  name: string,
  label: string,
  direction: "higher" | "lower",
  kind: "share" | "mean",
  value: EnginesMetric["value"],
): EnginesMetric {
  return { name, label, direction, kind, compare: true, value };
}

/** Every metric of an engines run, in the order `compare` lists them. */
export const ENGINES_METRICS: EnginesMetric[] = [
  metric("savings_pct", "savings %", "higher", "mean", (e) => e.savings_pct),
  metric("needle_recall", "needle recall", "higher", "share", (e) => e.needles.recall),
  metric("qa_recall", "QA recall", "higher", "share", (e) => e.qa?.recall ?? null),
  // LoCoMo's answer F1 of the row's LoCoMo questions, when it has some.
  metric("f1", "LoCoMo F1", "higher", "share", (e) => e.probes?.f1),
  metric("cold_ms", "cold ms", "lower", "mean", (e) => e.latency_ms.cold),
  metric("warm_median_ms", "warm median ms", "lower", "mean", (e) => e.latency_ms.warm_median),
];

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
      const name = e.conversation ? `${e.engine} [${conversationLabel(e.conversation)}]` : e.engine;
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
