/**
 * `hotpot-ceilings`: a ceiling sweep's published rows and aggregates over the per-ceiling `hotpot-aggregate`
 * nodes (the shared stage: `answer_pipeline.ts`).
 *
 * @module
 */
import { ceilingOf as readCeiling, defineCeilingsStage } from "../../../answer_pipeline.ts";
import type { HotpotMethodAggregate } from "../aggregate.ts";
import type { HotpotResultRow } from "../rows.ts";

/** Reads one ceiling's aggregates and rows from the stage inputs. */
export const ceilingOf = (inputs: Record<string, unknown>, cap: number) =>
  readCeiling<HotpotMethodAggregate, HotpotResultRow>(inputs, cap);

/** The `hotpot-ceilings` stage. */
export const hotpotCeilingsStage = defineCeilingsStage({
  name: "hotpot-ceilings",
  doc:
    "A ceiling sweep's results.json and aggregate.json: every ceiling's rows and aggregates, each with its " +
    "input_cap (Full, which no ceiling limits, once with null).",
  field: "method",
  aggregateDoc: "per-method (and per-ceiling) means, published as aggregate.json",
});
