/**
 * Zod helpers for numeric CLI options (which `parseArgs` gives as strings), and `--bootstrap N` that every run
 * command and `compare` share.
 * @module
 */
import { z } from "zod";
import { DEFAULT_RESAMPLES } from "../analysis/bootstrap.ts";

/** Adds `message` as the option's issue; returns zod's NEVER (the transform's result when refused). */
function refuse(ctx: z.RefinementCtx, message: string): never {
  ctx.addIssue({ code: "custom", message });
  return z.NEVER;
}

/** A whole number ≥ `min` given as a string. */
export function intOption(min = 0, max = Number.MAX_SAFE_INTEGER) {
  return z.string().regex(/^[0-9]+$/, "must be a whole number").transform(Number).pipe(
    z.number().int().min(min).max(max),
  );
}

/** A comma-separated list of numbers in [0, 1]. */
export const fractionListOption = z.string().transform((text, ctx) => {
  const parts = text.split(",").map((p) => p.trim()).filter((p) => p.length > 0);
  const values = parts.map(Number);
  const bad = parts.find((p, i) => !/^[0-9.]+$/.test(p) || !(values[i] >= 0 && values[i] <= 1));
  if (bad !== undefined) return refuse(ctx, `${JSON.stringify(bad)} is not a number in [0, 1]`);
  return values;
});

/** A range like `1-5` or a single number, as the list of whole numbers it covers. */
export function rangeOption(min: number, max: number) {
  return z.string().transform((text, ctx) => {
    // No spaces, as every other number (` 2` is refused).
    const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(text);
    if (!m) return refuse(ctx, "expected N or N-M");
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (lo < min || hi > max || lo > hi) return refuse(ctx, `expected a range within ${min}-${max}`);
    return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  });
}

/** A comma-separated list of distinct whole numbers in [min, max] (`--input-cap 2400,3600`). */
export function intListOption(min = 0, max = Number.MAX_SAFE_INTEGER) {
  return z.string().transform((text, ctx) => {
    const parts = text.split(",");
    const bad = parts.find((p) => !/^[0-9]+$/.test(p) || Number(p) < min || Number(p) > max);
    if (bad !== undefined) {
      const shown = parts.length === 1
        ? "must be"
        : `${JSON.stringify(bad.length > 40 ? `${bad.slice(0, 40)}…` : bad)} is not`;
      return refuse(ctx, `${shown} a whole number from ${min} to ${max}`);
    }
    const values = parts.map(Number);
    const repeated = values.find((v, i) => values.indexOf(v) !== i);
    if (repeated !== undefined) return refuse(ctx, `${repeated} is given twice`);
    return values;
  });
}

/** `--bootstrap N`: resamples of the 95% confidence intervals. */
export const bootstrapOption = intOption(100, 1_000_000);

/** The help line of {@link bootstrapOption}. */
export const BOOTSTRAP_OPTION_HELP =
  `  --bootstrap N        bootstrap resamples of the 95% confidence intervals (default ${DEFAULT_RESAMPLES}, 100 to 1000000)`;
