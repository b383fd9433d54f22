/**
 * How `compare` pairs two hotpot runs: by question id, per method (and ceiling), invalid counting zero.
 * @module
 */
import { z } from "zod";
import type { CompareUnits } from "../../../report/compare_units.ts";
import { hotpotMetricsIn, rowValue } from "../run/metrics.ts";

const HotpotRows = z.array(
  z.object({
    question_id: z.string(),
    method: z.string(),
    status: z.string(),
    input_cap: z.number().nullable().optional(),
    metrics: z.record(z.string(), z.number()),
    sp_survival: z.number().nullable(),
  }),
);

/** The hotpot suite's compare units. */
export const HOTPOT_COMPARE_UNITS: CompareUnits<z.infer<typeof HotpotRows>[number]> = {
  unit: "question",
  schema: HotpotRows,
  unitOf: (r) => r.question_id,
  conditionOf: (
    r,
  ) => (typeof r.input_cap === "number" && r.method !== "full" ? `${r.method}@${r.input_cap}` : r.method),
  get metrics(): [string, (r: z.infer<typeof HotpotRows>[number]) => number][] {
    return hotpotMetricsIn("units").map((m) => [m.name, (r) => rowValue(m, r)]);
  },
  validity: { valid: (r) => r.status === "ok", noun: "conditions" },
};
