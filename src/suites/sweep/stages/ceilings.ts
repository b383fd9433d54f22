/**
 * `sweep-ceilings`: a sweep ceiling sweep's published rows and aggregates over the per-ceiling
 * `sweep-aggregate` nodes (the shared stage: `answer_pipeline.ts`).
 *
 * @module
 */
import { ceilingOf, ceilingRows, defineCeilingsStage } from "../../answer_pipeline.ts";
import type { SweepKindAggregate } from "../aggregate.ts";
import type { SweepResultRow } from "../rows.ts";

/** Reads one ceiling's aggregates and rows from the stage inputs. */
export const sweepCeilingOf = (inputs: Record<string, unknown>, cap: number) =>
  ceilingOf<SweepKindAggregate, SweepResultRow>(inputs, cap);

/** Every ceiling's rows, each with its `input_cap` (Full, which no ceiling limits, once with null). */
export const sweepCeilingRows = (inputs: Record<string, unknown>, caps: readonly number[]) =>
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
