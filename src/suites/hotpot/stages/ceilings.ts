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
import { defineStage } from "../../../pipeline/stage.ts";
import { publishedJson } from "../../published.ts";
import type { HotpotMethodAggregate } from "../aggregate.ts";
import type { HotpotResultRow } from "../rows.ts";

/** The input names of one ceiling's aggregate and rows (also the report stage's). */
export const ceilingInputName = (part: "aggregate" | "results", cap: number) => `ceiling-${part}:${cap}`;

/** The `hotpot-ceilings` (and report) inputs and values from the per-ceiling aggregate nodes. */
export function ceilingInputs(
  caps: readonly number[],
  aggregates: readonly { node: { outputs: Record<string, string> }; outputs: Record<string, unknown> }[],
): { inputs: Record<string, string>; values: Record<string, unknown> } {
  const inputs: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  caps.forEach((cap, i) => {
    for (const part of ["aggregate", "results"] as const) {
      inputs[ceilingInputName(part, cap)] = aggregates[i].node.outputs[`${part}.json`];
      values[ceilingInputName(part, cap)] = aggregates[i].outputs[`${part}.json`];
    }
  });
  return { inputs, values };
}

/** Reads one ceiling's aggregate and rows from the stage inputs. */
export function ceilingOf(
  inputs: Record<string, unknown>,
  cap: number,
): { aggregates: HotpotMethodAggregate[]; rows: HotpotResultRow[] } {
  const text = (part: "aggregate" | "results") => z.string().parse(inputs[ceilingInputName(part, cap)]);
  return {
    aggregates: JSON.parse(text("aggregate")) as HotpotMethodAggregate[],
    rows: JSON.parse(text("results")) as HotpotResultRow[],
  };
}

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
