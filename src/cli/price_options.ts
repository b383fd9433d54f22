/**
 * `--price MODEL=IN/OUT` (repeatable) and `--prices FILE`: the prices a run's report uses for its cost
 * section. Read and validated before a run starts; a bad value or file is a usage error (exit 2).
 *
 * @module
 */
import { z } from "zod";
import { PriceOptionSchema, PricesFileSchema, type PriceTable, priceTable } from "../analysis/cost.ts";
import { UsageError } from "../errors.ts";

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

/** The price table of the options, or null when no price was given (then no cost is shown). */
export async function readPrices(options: {
  price?: { model: string; input: number; output: number }[];
  prices?: string;
}): Promise<PriceTable | null> {
  let file: PriceTable | undefined;
  if (options.prices !== undefined) {
    let text: string;
    try {
      text = await Deno.readTextFile(options.prices);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new UsageError(`--prices ${options.prices}: not found`);
      }
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new UsageError(`--prices ${options.prices}: not JSON (${error.message})`);
      }
      throw error;
    }
    const parsed = PricesFileSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new UsageError(
        `--prices ${options.prices}: ${issue.path.join(".") || "(root)"}: ${issue.message}`,
      );
    }
    file = parsed.data;
  }
  return priceTable(file, options.price);
}
