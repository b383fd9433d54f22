/**
 * One answer's row in the hotpot `results.json`.
 *
 * @module
 */
import type { z } from "zod";
import type { HotpotResultRowSchema } from "./stages/rows.ts";
import { parseSpan, topLevelArraySpans } from "../../../core/json_spans.ts";
import { parseJsonBytes } from "../../../core/json_read.ts";

/** One answer's row in results.json (its schema, fields in print order: `stages/rows.ts`). */
export type HotpotResultRow = z.infer<typeof HotpotResultRowSchema>;

/** A row without the answer's text and parsed prediction: what the aggregate and the stats read. */
export type HotpotRowCore = Omit<HotpotResultRow, "answer_text" | "prediction">;

/**
 * A row's core and the answer as the explorer shows it: what a report holds of every row of a run at once
 * (so kept small).
 */
export type HotpotRowFigures = HotpotRowCore & {
  /** The predicted answer, or the raw answer text when it could not be parsed ("" without an answer). */
  shown_answer: string;
};

/** The figures of a row (see {@link HotpotRowFigures}). */
export function rowFigures(row: HotpotResultRow): HotpotRowFigures {
  const { answer_text, prediction, ...figures } = row;
  return { ...figures, shown_answer: prediction?.answer ?? answer_text ?? "" };
}

/**
 * The figures of every row of a `results.json`'s bytes, parsed one row at a time: the rows as objects (with
 * their answers' texts) are never all held at once. A text the element scan cannot follow is parsed whole, so
 * that `JSON.parse` names what is wrong.
 */
export function readRowFigures(bytes: Uint8Array): HotpotRowFigures[] {
  const spans = topLevelArraySpans(bytes);
  if (spans === null) {
    return (parseJsonBytes(bytes) as HotpotResultRow[]).map(rowFigures);
  }
  return spans.map((span) => rowFigures(parseSpan(bytes, span) as HotpotResultRow));
}
