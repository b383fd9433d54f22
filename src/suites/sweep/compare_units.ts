/**
 * How `compare` pairs two sweep runs unit by unit: by generation (answers averaged first), per context kind
 * (and ceiling, in a ceiling sweep), over the fact score and the repair pass (invalid conditions count zero).
 *
 * @module
 */
import { z } from "zod";
import type { CompareUnits } from "../../report/compare_units.ts";

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
  metrics: [
    ["fact_score", (r) => (r.status === "ok" ? r.fact_score : 0)],
    ["repair_pass", (r) => (r.status === "ok" && r.repair_all_passed ? 1 : 0)],
  ],
  validity: { valid: (r) => r.status === "ok", noun: "answers" },
};
