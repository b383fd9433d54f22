/**
 * What the report stages share besides the aggregate: every context blob the rows name, as inputs, options,
 * the requested models' schema, the three outputs and stats.json.
 * @module
 */
import { z } from "zod";
import type { PriceTable } from "./cost.ts";
import { finiteOrNull } from "./format.ts";

/** Options of the analysis sections of a report. */
export interface ReportAnalysisOptions {
  bootstrap?: number;
  prices?: PriceTable | null;
}

/** One `context:<hash>` input per context blob hash given (sorted, each once). */
export function contextInputs(hashes: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...new Set(hashes)].sort().map((hash) => [`context:${hash}`, hash]));
}

/** The requested models as protocol.json and the reports state them (a run's model set-up description). */
export const RunModelsSchema = z.object({
  mode: z.string(),
  chat_model: z.string(),
  decision_model: z.string(),
  note: z.string(),
});

const text = (doc: string) => ({ schema: z.string(), kind: "text" as const, doc });

/** A report stage's outputs, each published as it is. */
export const REPORT_OUTPUTS = {
  "stats.json": text("intervals and paired differences, published as stats.json"),
  "REPORT.md": text("the Markdown report, published as REPORT.md"),
  "report.html": text("the HTML report, published as report.html"),
};

/** stats.json: the statistics, then in a ceiling sweep each ceiling's (non-finite numbers as null). */
export function statsJson(stats: object, ceilings?: readonly { cap: number; stats: object }[]): string {
  const each = ceilings?.map((c) => ({ input_cap: c.cap, ...finiteOrNull(c.stats) }));
  return `${JSON.stringify({ ...finiteOrNull(stats), ...(each ? { ceilings: each } : {}) }, null, 2)}\n`;
}
