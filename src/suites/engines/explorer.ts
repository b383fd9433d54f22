/**
 * The engines report's explorer data: the stored transcript's needles and probes with every engine's result.
 * @module
 */
import type { ExplorerData } from "../../report/explorer.ts";
import { enginesExplorer, type ExplorerNeedle } from "./explorer_items.ts";
import { engineLabel } from "./report.ts";
import type { EngineResult } from "./run.ts";
import { probeId } from "./run.ts";
import { NeedleSchema } from "../../data/transcripts/needle.ts";
import { ProbeSchema } from "../../data/transcripts/types.ts";

/** The explorer of an engines run; rows name their budget when the run measured several. */
export function enginesExplorerOf(
  transcript: { needles: readonly unknown[]; probes: readonly unknown[] },
  results: readonly EngineResult[],
  severalBudgets: boolean,
): ExplorerData {
  const needles: ExplorerNeedle[] = transcript.needles.map((raw) => {
    const { id, fact, question, answer, position } = NeedleSchema.parse(raw);
    return { id, kind: "needle", fact, question, answer, position };
  });
  const probes: ExplorerNeedle[] = transcript.probes.map((raw, i) => {
    const p = ProbeSchema.parse(raw);
    const facts = p.facts ?? [p.answer];
    return {
      id: probeId(p, i),
      kind: "probe",
      question: p.question,
      answer: facts.join("; "),
      ...(p.category !== undefined ? { type: p.category } : {}),
    };
  });
  return enginesExplorer(
    [...needles, ...probes],
    results.map((r) => ({
      engine: engineLabel(r),
      ...(severalBudgets ? { budget: r.budget } : {}),
      status: r.status,
      reason: r.reason,
      needles: r.needles,
      qa: r.qa,
      probes: r.probes,
      ...(r.recovery ? { recovery: { qa: r.recovery.qa, probes: r.recovery.probes } } : {}),
    })),
  );
}
