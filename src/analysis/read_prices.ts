/**
 * Reads `--price` values and a `--prices FILE` into a price table; a bad file is a usage error (exit 2).
 * @module
 */
import { PricesFileSchema, type PriceTable, priceTable } from "./cost.ts";
import { UsageError } from "../errors.ts";
import { parseJson } from "../core/json_read.ts";
import { readInputText } from "../fs_input.ts";

/** The price table of the options, or null when no price was given (then no cost is shown). */
export async function readPrices(options: {
  price?: { model: string; input: number; output: number }[];
  prices?: string;
}): Promise<PriceTable | null> {
  let file: PriceTable | undefined;
  if (options.prices !== undefined) {
    const text = await readInputText(options.prices, "--prices");
    let value: unknown;
    try {
      value = parseJson(text);
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
