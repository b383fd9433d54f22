/**
 * `sweep-ceilings`: a sweep ceiling sweep's published rows and aggregates. Its inputs are every ceiling's
 * `results.json` and `aggregate.json` (the per-ceiling `sweep-aggregate` nodes); it publishes `results.json`
 * (Full's rows once with `input_cap` null, then each ceiling's other rows with their `input_cap`) and
 * `aggregate.json` (the primary ceiling's aggregates as a single-ceiling run has them, each with its
 * `input_cap`, then the other ceilings' aggregates of every kind but Full).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { publishedJson } from "../../published.ts";
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
export function sweepCeilingRows(
  inputs: Record<string, unknown>,
  caps: readonly number[],
): (SweepResultRow & { input_cap: number | null })[] {
  return [
    ...sweepCeilingOf(inputs, caps[0]).rows.filter((r) => r.kind === "full").map((r) => ({
      ...r,
      input_cap: null,
    })),
    ...caps.flatMap((cap) =>
      sweepCeilingOf(inputs, cap).rows.filter((r) => r.kind !== "full").map((r) => ({ ...r, input_cap: cap }))
    ),
  ];
}

/** The `sweep-ceilings` stage. */
export const sweepCeilingsStage = defineStage({
  name: "sweep-ceilings",
  version: 1,
  doc:
    "A sweep ceiling sweep's results.json and aggregate.json: every ceiling's rows and aggregates, each with " +
    "its input_cap (Full, which no ceiling limits, once with null).",
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
      doc: "per-kind (and per-ceiling) means, published as aggregate.json",
    },
  },
  provider: false,
  run({ params, inputs }) {
    const [primary, ...others] = params.caps;
    const aggregates = [
      ...sweepCeilingOf(inputs, primary).aggregates.map((a) => ({
        ...a,
        input_cap: a.kind === "full" ? null : primary,
      })),
      ...others.flatMap((cap) =>
        sweepCeilingOf(inputs, cap).aggregates.filter((a) => a.kind !== "full").map((a) => ({
          ...a,
          input_cap: cap,
        }))
      ),
    ];
    return Promise.resolve({
      outputs: {
        "results.json": publishedJson(sweepCeilingRows(inputs, params.caps)),
        "aggregate.json": publishedJson(aggregates),
      },
    });
  },
});
