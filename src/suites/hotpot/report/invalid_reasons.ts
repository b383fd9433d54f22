/**
 * Why a hotpot run's conditions were invalid: per method, invalid rows by kind of reason (its text before the
 * first colon), with a count and an example; shown under the results table.
 * @module
 */
import { type Cell, markdownTable } from "../../../core/markdown_table.ts";
import type { HotpotRowCore } from "../run/rows.ts";

/** One kind of reason for one method: its invalid rows of the method's `planned`, the first reason whole. */
export interface InvalidReason {
  method: string;
  kind: string;
  count: number;
  planned: number;
  example: string;
}

/** At most this many characters of an example are shown. */
const EXAMPLE_CHARS = 200;

/** The kind of a reason: the text before its first colon (the whole text without one). */
function reasonKind(reason: string): string {
  const colon = reason.indexOf(":");
  return (colon > 0 ? reason.slice(0, colon) : reason).trim() || "no reason given";
}

/** The invalid rows' reasons by method (in the order methods first appear) and kind (most frequent first). */
export function invalidReasons(
  rows: readonly Pick<HotpotRowCore, "method" | "status" | "reason">[],
): InvalidReason[] {
  const planned = new Map<string, number>();
  const byMethod = new Map<string, Map<string, InvalidReason>>();
  for (const row of rows) {
    planned.set(row.method, (planned.get(row.method) ?? 0) + 1);
    if (!byMethod.has(row.method)) byMethod.set(row.method, new Map());
    if (row.status === "ok") continue;
    const reason = row.reason ?? "no reason given";
    const kinds = byMethod.get(row.method)!;
    const kind = reasonKind(reason);
    const entry = kinds.get(kind) ?? { method: row.method, kind, count: 0, planned: 0, example: reason };
    entry.count++;
    kinds.set(kind, entry);
  }
  return [...byMethod].flatMap(([method, kinds]) =>
    [...kinds.values()]
      .map((entry) => ({ ...entry, planned: planned.get(method) ?? 0 }))
      .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind))
  );
}

/** Column names of the invalid-reasons table. */
export const INVALID_REASON_HEADERS = ["method", "invalid answers", "reason", "example"];

/** Rows of the invalid-reasons table. */
export function invalidReasonRows(reasons: readonly InvalidReason[]): Cell[][] {
  return reasons.map((r) => {
    // One line whatever a reason holds (a provider's error text may span lines).
    const example = r.example.replace(/\s+/g, " ");
    return [
      r.method,
      `${r.count}/${r.planned}`,
      r.kind.replace(/\s+/g, " "),
      example.length > EXAMPLE_CHARS ? `${example.slice(0, EXAMPLE_CHARS)}…` : example,
    ];
  });
}

/** The sentence above the table. */
export const INVALID_REASONS_NOTE =
  "Why conditions were invalid (they count zero above): the invalid answer " +
  "rows of each method by the kind of their reason, with the first such reason as its example.";

/** The Markdown section, or "" when every condition was valid. */
export function invalidReasonsMarkdown(reasons: readonly InvalidReason[] | undefined): string {
  if (!reasons || reasons.length === 0) return "";
  return `\n### Invalid conditions\n\n${INVALID_REASONS_NOTE}\n\n${
    markdownTable(INVALID_REASON_HEADERS, invalidReasonRows(reasons))
  }\n`;
}
