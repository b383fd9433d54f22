/**
 * How `compare` pairs two sweep runs unit by unit: by generation (answers averaged first), per context kind
 * (and ceiling, in a ceiling sweep), over the metrics its table pairs (invalid conditions count zero).
 * @module
 */
import { z } from "zod";
import type { CompareUnits } from "../../report/compare_units.ts";
import { sweepMetricsIn, sweepRowValue } from "./metrics.ts";

const SweepRows = z.array(
  z.object({
    kind: z.string(),
    generation: z.number(),
    answer_index: z.number(),
    status: z.string(),
    input_cap: z.number().nullable().optional(),
    fact_score: z.number(),
    repair_all_passed: z.boolean(),
  }),
);

/** The sweep suite's compare units. */
export const SWEEP_COMPARE_UNITS: CompareUnits<z.infer<typeof SweepRows>[number]> = {
  unit: "generation (answers averaged first)",
  schema: SweepRows,
  unitOf: (r) => `gen=${r.generation}`,
  conditionOf: (r) => (typeof r.input_cap === "number" ? `${r.kind}@${r.input_cap}` : r.kind),
  get metrics(): [string, (r: z.infer<typeof SweepRows>[number]) => number][] {
    return sweepMetricsIn("paired").map((m) => [m.name, (r) => sweepRowValue(m, r)]);
  },
  validity: { valid: (r) => r.status === "ok", noun: "answers" },
};
