/**
 * The inputs of a ceiling sweep's `*-ceilings` and report stages, shared by hotpot and sweep: every ceiling's
 * `results.json` and `aggregate.json` (the per-ceiling aggregate nodes' outputs), named by part and ceiling.
 *
 * @module
 */
import { z } from "zod";
import { parseJson } from "../core/json_read.ts";

/** The input names of one ceiling's aggregate and rows (also the report stage's). */
export const ceilingInputName = (part: "aggregate" | "results", cap: number) => `ceiling-${part}:${cap}`;

/** The ceilings stage's (and report's) inputs and values from the per-ceiling aggregate nodes. */
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

/** Reads one ceiling's aggregates and rows (as the suite's types) from the stage inputs. */
export function ceilingOf<A, R>(
  inputs: Record<string, unknown>,
  cap: number,
): { aggregates: A[]; rows: R[] } {
  const text = (part: "aggregate" | "results") => z.string().parse(inputs[ceilingInputName(part, cap)]);
  return { aggregates: parseJson(text("aggregate")) as A[], rows: parseJson(text("results")) as R[] };
}
