/**
 * `--price MODEL=IN/OUT` (repeatable) and `--prices FILE`: the prices of a run's cost section.
 * @module
 */
import { z } from "zod";
import { PriceOptionSchema } from "../analysis/cost.ts";

export const PriceOptionsShape = {
  price: z.array(PriceOptionSchema).optional(),
  prices: z.string().min(1).optional(),
};

export const PRICE_OPTION_HELP =
  `  --price MODEL=IN/OUT USD per million input/output tokens of MODEL (repeatable); adds a cost section
  --prices FILE        the same as JSON: {"MODEL": {"input": USD, "output": USD}, ...}`;
