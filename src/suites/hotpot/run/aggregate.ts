/**
 * Aggregation of hotpot results: answers averaged within a question, then questions equally; invalid
 * conditions count zero in the denominator.
 *
 * @module
 */
import type { HotpotMethod } from "./methods.ts";
import type { AnsweringModels } from "../../../core/answering_models.ts";
import type { HotpotRowCore } from "./stages/rows.ts";
import { type HotpotMetrics, METRIC_NAMES } from "./scoring.ts";
import { exactQuestionMean } from "./exact_mean.ts";
import { contextsOverCap } from "./support_kept.ts";

/** The aggregate of one method. */
export interface HotpotMethodAggregate {
  method: HotpotMethod;
  metrics: HotpotMetrics;
  /** Answer EM as an exact rational `p/q` (what verdicts compare; `metrics.em` is its nearest double). */
  em_exact: string;
  /** Mean share of gold supporting sentences present verbatim in the text the model reads (invalid = 0). */
  sp_survival: number;
  valid: number;
  planned: number;
  /** Provider-reported input tokens of the answer calls. */
  input_tokens: { mean: number | null; total: number };
  /** Our exact count of the answer inputs (mean over contexts that exist). */
  context_tokens_mean: number | null;
  /** Distinct answer inputs (contexts, not answers) not within the ceiling (only `full` may have any). */
  over_cap: number;
  compression_usage: { calls: number; input_tokens: number; output_tokens: number };
  /** EM by question type. */
  em_by_type: Record<string, number>;
  /** The models that answered this method's calls, per role, beside the requested names. */
  models: AnsweringModels;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

function questionMeans(rows: readonly HotpotRowCore[], pick: (r: HotpotRowCore) => number): number {
  const byQuestion = new Map<string, number[]>();
  for (const r of rows) {
    const list = byQuestion.get(r.question_id) ?? [];
    list.push(pick(r));
    byQuestion.set(r.question_id, list);
  }
  return mean([...byQuestion.values()].map(mean));
}

/** Aggregates rows per method (in the given method order). */
export function aggregateHotpot(
  rows: readonly HotpotRowCore[],
  methods: readonly HotpotMethod[],
  compressionUsage: Record<string, { calls: number; input_tokens: number; output_tokens: number }>,
  answeringModels: Record<string, AnsweringModels> = {},
): HotpotMethodAggregate[] {
  return methods.map((method) => {
    const mine = rows.filter((r) => r.method === method);
    const metrics = Object.fromEntries(
      METRIC_NAMES.map((
        name,
      ) => [name, questionMeans(mine, (r) => (r.status === "ok" ? r.metrics[name] : 0))]),
    ) as HotpotMetrics;
    const inputs = mine.map((r) => r.input_tokens).filter((t): t is number => t !== null);
    const contexts = mine.map((r) => r.context_tokens).filter((t): t is number => t !== null);
    const types = [...new Set(mine.map((r) => r.type))].sort();
    return {
      method,
      metrics,
      em_exact: exactQuestionMean(mine, (r) => (r.status === "ok" ? r.metrics.em : 0)).toString(),
      sp_survival: questionMeans(mine, (r) => (r.status === "ok" ? r.sp_survival ?? 0 : 0)),
      valid: mine.filter((r) => r.status === "ok").length,
      planned: mine.length,
      input_tokens: { mean: inputs.length ? mean(inputs) : null, total: inputs.reduce((a, b) => a + b, 0) },
      context_tokens_mean: contexts.length ? mean(contexts) : null,
      over_cap: contextsOverCap(mine),
      compression_usage: compressionUsage[method] ?? { calls: 0, input_tokens: 0, output_tokens: 0 },
      em_by_type: Object.fromEntries(
        types.map((
          t,
        ) => [
          t,
          questionMeans(mine.filter((r) => r.type === t), (r) => (r.status === "ok" ? r.metrics.em : 0)),
        ]),
      ),
      models: answeringModels[method] ?? {},
    };
  });
}
