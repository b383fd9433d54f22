/**
 * `hotpot-ceilings`: a ceiling sweep's published rows and aggregates. Its inputs are every ceiling's
 * `results.json` and `aggregate.json` (the per-ceiling `hotpot-aggregate` nodes); it publishes
 * `results.json` (Full's rows once with `input_cap` null, then each ceiling's compressed rows with their
 * `input_cap`) and `aggregate.json` (the primary ceiling's aggregates as a single-ceiling run has them, each
 * with its `input_cap`, then the other ceilings' compressed aggregates).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { publishedJson } from "../../../published.ts";
import { ceilingOf as readCeiling } from "../../../ceiling_inputs.ts";

export { ceilingInputName, ceilingInputs } from "../../../ceiling_inputs.ts";
import type { HotpotMethodAggregate } from "../aggregate.ts";
import type { HotpotResultRow } from "../rows.ts";

/** Reads one ceiling's aggregates and rows from the stage inputs. */
export const ceilingOf = (
  inputs: Record<string, unknown>,
  cap: number,
): { aggregates: HotpotMethodAggregate[]; rows: HotpotResultRow[] } =>
  readCeiling<HotpotMethodAggregate, HotpotResultRow>(inputs, cap);

/** The `hotpot-ceilings` stage. */
export const hotpotCeilingsStage = defineStage({
  name: "hotpot-ceilings",
  version: 1,
  doc:
    "A ceiling sweep's results.json and aggregate.json: every ceiling's rows and aggregates, each with its " +
    "input_cap (Full, which no ceiling limits, once with null).",
  params: z.object({
    /** The ceilings as given; the first is the primary one. */
    caps: z.array(z.number().int()).min(2),
  }),
  inputs: ["ceiling-aggregate:*", "ceiling-results:*"],
  textInputs: ["ceiling-aggregate:*", "ceiling-results:*"],
  outputs: {
    "results.json": {
      schema: z.string(),
      kind: "text",
      doc: "every answer row with its input_cap, published as results.json",
    },
    "aggregate.json": {
      schema: z.string(),
      kind: "text",
      doc: "per-method (and per-ceiling) means, published as aggregate.json",
    },
  },
  provider: false,
  run({ params, inputs }) {
    const [primary, ...others] = params.caps;
    const first = ceilingOf(inputs, primary);
    const capOf = (method: string, cap: number) => method === "full" ? null : cap;
    const rows = [
      ...first.rows.filter((r) => r.method === "full").map((r) => ({ ...r, input_cap: null })),
      ...params.caps.flatMap((cap) =>
        ceilingOf(inputs, cap).rows.filter((r) => r.method !== "full").map((r) => ({ ...r, input_cap: cap }))
      ),
    ];
    const aggregates = [
      ...first.aggregates.map((a) => ({ ...a, input_cap: capOf(a.method, primary) })),
      ...others.flatMap((cap) =>
        ceilingOf(inputs, cap).aggregates.filter((a) => a.method !== "full").map((a) => ({
          ...a,
          input_cap: cap,
        }))
      ),
    ];
    return Promise.resolve({
      outputs: { "results.json": publishedJson(rows), "aggregate.json": publishedJson(aggregates) },
    });
  },
});
