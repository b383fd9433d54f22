/**
 * `sweep-ceilings`: a sweep ceiling sweep's published rows and aggregates over the per-ceiling
 * `sweep-aggregate` nodes (the shared stage: `answer_pipeline.ts`).
 *
 * @module
 */
import { ceilingRows, defineCeilingsStage } from "../../answer_pipeline.ts";
import { ceilingInputName, ceilingInputs, ceilingOf } from "../../ceiling_inputs.ts";
import type { SweepKindAggregate } from "../aggregate.ts";
import type { SweepResultRow } from "../rows.ts";

/** The input names of one ceiling's aggregate and rows (also the report stage's). */
export const sweepCeilingInputName = ceilingInputName;

/** The ceilings (and report) inputs and values from the per-ceiling aggregate nodes. */
export const sweepCeilingInputs = ceilingInputs;

/** Reads one ceiling's aggregates and rows from the stage inputs. */
export const sweepCeilingOf = (
  inputs: Record<string, unknown>,
  cap: number,
): { aggregates: SweepKindAggregate[]; rows: SweepResultRow[] } =>
  ceilingOf<SweepKindAggregate, SweepResultRow>(inputs, cap);

/** Every ceiling's rows, each with its `input_cap` (Full, which no ceiling limits, once with null). */
export const sweepCeilingRows = (
  inputs: Record<string, unknown>,
  caps: readonly number[],
): (SweepResultRow & { input_cap: number | null })[] =>
  ceilingRows<SweepResultRow, "kind">("kind", inputs, caps);

/** The `sweep-ceilings` stage. */
export const sweepCeilingsStage = defineCeilingsStage({
  name: "sweep-ceilings",
  doc:
    "A sweep ceiling sweep's results.json and aggregate.json: every ceiling's rows and aggregates, each with " +
    "its input_cap (Full, which no ceiling limits, once with null).",
  field: "kind",
  aggregateDoc: "per-kind (and per-ceiling) means, published as aggregate.json",
});
