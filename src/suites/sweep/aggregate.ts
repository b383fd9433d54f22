/**
 * Sweep aggregation per context kind: answers are averaged within a generation, then generations equally;
 * invalid conditions (over budget, failed calls) count zero and stay in the denominator.
 * @module
 */
import type { AnsweringModels } from "../../core/answering_models.ts";
import type { SweepResultRow } from "./rows.ts";

/** The aggregate of one context kind. */
export interface SweepKindAggregate {
  kind: string;
  fact_score: number;
  repair_pass_share: number;
  valid: number;
  planned: number;
  over_budget: number;
  context_tokens_mean: number | null;
  input_tokens: { mean: number | null; total: number };
  /** The models that answered this kind's calls, per role, beside the requested names. */
  models: AnsweringModels;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function generationMeans(rows: readonly SweepResultRow[], pick: (r: SweepResultRow) => number): number {
  const byGen = new Map<number, number[]>();
  for (const r of rows) byGen.set(r.generation, [...(byGen.get(r.generation) ?? []), pick(r)]);
  return mean([...byGen.values()].map(mean));
}

/** Aggregates the rows per kind, in the given kind order. */
export function aggregateSweep(
  rows: readonly SweepResultRow[],
  kinds: readonly string[],
  answeringModels: Record<string, AnsweringModels> = {},
): SweepKindAggregate[] {
  return kinds.map((kind) => {
    const mine = rows.filter((r) => r.kind === kind);
    const inputs = mine.map((r) => r.input_tokens).filter((t): t is number => t !== null);
    const contexts = mine.map((r) => r.context_tokens).filter((t): t is number => t !== null);
    return {
      kind,
      fact_score: generationMeans(mine, (r) => (r.status === "ok" ? r.fact_score : 0)),
      repair_pass_share: generationMeans(mine, (r) => (r.status === "ok" && r.repair_all_passed ? 1 : 0)),
      valid: mine.filter((r) => r.status === "ok").length,
      planned: mine.length,
      over_budget: mine.filter((r) => r.within_cap === false).length,
      context_tokens_mean: contexts.length ? mean(contexts) : null,
      input_tokens: { mean: inputs.length ? mean(inputs) : null, total: inputs.reduce((a, b) => a + b, 0) },
      models: answeringModels[kind] ?? {},
    };
  });
}
