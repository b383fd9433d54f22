/**
 * `--price MODEL=IN/OUT` (repeatable) and `--prices FILE`: the prices a run's report uses for its cost
 * section. Read and validated before a run starts; a bad value or file is a usage error (exit 2).
 *
 * @module
 */
import { z } from "zod";
import { PriceOptionSchema } from "../analysis/cost.ts";

/** parseArgs spec of the price options. */
export const PRICE_OPTION_SPEC = {
  price: { type: "string", multiple: true },
  prices: { type: "string" },
} as const;

/** zod shape of the price options. */
export const PriceOptionsShape = {
  price: z.array(PriceOptionSchema).optional(),
  prices: z.string().min(1).optional(),
};

/** Help lines of the price options. */
export const PRICE_OPTION_HELP =
  `  --price MODEL=IN/OUT USD per million input/output tokens of MODEL (repeatable); adds a cost section
  --prices FILE        the same as JSON: {"MODEL": {"input": USD, "output": USD}, ...}`;

export { readPrices } from "../analysis/read_prices.ts";
