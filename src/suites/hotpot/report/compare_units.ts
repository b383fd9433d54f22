/**
 * How `compare` pairs two hotpot runs unit by unit: by question id, per method (and ceiling, in a ceiling
 * sweep), over EM, F1, joint F1 and gold SP kept (invalid conditions count zero).
 *
 * @module
 */
import { z } from "zod";
import type { CompareUnits } from "../../../report/compare_units.ts";

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
  metrics: [
    ["em", (r) => (r.status === "ok" ? r.metrics.em ?? 0 : 0)],
    ["f1", (r) => (r.status === "ok" ? r.metrics.f1 ?? 0 : 0)],
    ["joint_f1", (r) => (r.status === "ok" ? r.metrics.joint_f1 ?? 0 : 0)],
    ["gold_sp_kept", (r) => (r.status === "ok" ? r.sp_survival ?? 0 : 0)],
  ],
  validity: { valid: (r) => r.status === "ok", noun: "conditions" },
};
