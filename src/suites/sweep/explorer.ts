/**
 * The sweep explorer's data: per generation, kind (and ceiling) the context given, the facts met, the repair
 * checks and each answer. Contexts arrive as report inputs ({@link sweepContextInputName}), so `verify
 * --rederive` re-derives the explorer from the store.
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { SweepResultRow } from "./aggregate.ts";
import type { ExplorerData, ExplorerItem, ExplorerSection } from "../../report/explorer.ts";

/** A row as the explorer reads it: a ceiling sweep's rows carry their `input_cap` (Full: null). */
export type SweepExplorerRow = SweepResultRow & { input_cap?: number | null };

/** The report input naming a context's messages (`context:…`) or record (`context-info:…`); cap null: none */
export function sweepContextInputName(
  part: "context" | "context-info",
  kind: string,
  generation: number,
  cap: number | null,
): string {
  return `${part}:kind=${kind} gen=${generation}${cap === null ? "" : ` cap=${cap}`}`;
}

/** The validity and repair tags' values, in filter order (an item gets the first or the second). */
const VALIDITY = ["all answers valid", "has an invalid answer"];
const REPAIR = ["an answer passed all checks", "no answer passed all checks"];

function capOf(r: SweepExplorerRow): number | null {
  return typeof r.input_cap === "number" ? r.input_cap : null;
}

/** The explorer data of a sweep run from its rows, rendered contexts (null: none) and kept unit ids. */
export function sweepExplorer(
  rows: readonly SweepExplorerRow[],
  contexts: ReadonlyMap<string, ChatMessage[] | null>,
  kept: ReadonlyMap<string, readonly string[]> = new Map(),
): ExplorerData {
  const groups = Map.groupBy(rows, (r) => {
    const cap = capOf(r);
    return `gen=${r.generation} ${r.kind}${cap === null ? "" : ` @${cap}`}`;
  });
  const swept = rows.some((r) => capOf(r) !== null);
  const contextList: ChatMessage[][] = [];
  const contextIndex = new Map<string, number>();
  const items: ExplorerItem[] = [...groups].map(([id, mine]) => {
    const first = mine[0];
    const cap = capOf(first);
    const name = sweepContextInputName("context", first.kind, first.generation, cap);
    const messages = contexts.get(name);
    const units = kept.get(name);
    const sections: ExplorerSection[] = [
      {
        heading: "Condition",
        open: true,
        facts: [
          ["context kind", first.kind],
          ["generation", String(first.generation)],
          ...(swept ? [["ceiling", cap === null ? "none (Full)" : String(cap)] as [string, string]] : []),
          ["context tokens", first.context_tokens === null ? "n/a" : String(first.context_tokens)],
          ["within ceiling", first.within_cap === null ? "n/a" : first.within_cap ? "yes" : "no"],
          ...(units !== undefined && first.kind !== "full"
            ? [["evidence units kept verbatim", units.length ? units.join(", ") : "none"] as [string, string]]
            : []),
        ],
      },
    ];
    for (const r of mine) {
      const status = r.status === "ok" ? "ok" : `invalid (${r.reason ?? ""})`;
      const facts = `${r.facts.filter((f) => f.passed).length}/${r.facts.length}`;
      sections.push({
        heading: `Answer ${r.answer_index}: ${status} · facts ${facts} · repair ${
          r.repair_all_passed ? "passed" : "failed"
        }`,
        open: r.answer_index === 0,
        table: {
          headers: ["check", "result", "reason"],
          rows: [
            ...r.facts.map((f) => [`fact: ${f.name}`, f.passed ? "✓ met" : "✗ not met", ""]),
            ...r.repair.map((c) => [`repair: ${c.name}`, c.passed ? "✓ passed" : "✗ failed", c.detail]),
          ],
        },
      }, {
        heading: `Answer ${r.answer_index} text`,
        facts: [["answer", r.answer_text ?? "(none)"]],
      });
    }
    if (messages) {
      const hash = JSON.stringify(messages);
      let index = contextIndex.get(hash);
      if (index === undefined) contextIndex.set(hash, index = contextList.push(messages) - 1);
      sections.push({
        heading: `Context (${messages.length} messages, as the model was given it)`,
        context: index,
      });
    } else if (contexts.has(name)) {
      sections.push({ heading: "Context: not rendered (see the reason above)" });
    }
    return {
      id,
      label: first.kind,
      tags: {
        kind: [first.kind],
        generation: [String(first.generation)],
        ...(swept ? { ceiling: [cap === null ? "none" : String(cap)] } : {}),
        validity: [VALIDITY[mine.every((r) => r.status === "ok") ? 0 : 1]],
        repair: [REPAIR[mine.some((r) => r.repair_all_passed) ? 0 : 1]],
      },
      sections,
    };
  });
  const opts = (values: string[]) => values.map((v) => ({ value: v, label: v }));
  const caps = [...new Set(rows.map((r) => capOf(r)).filter((c): c is number => c !== null))];
  return {
    title: "sweep conditions",
    itemName: "generation × context",
    filters: [
      { id: "kind", label: "context", options: opts([...new Set(rows.map((r) => r.kind))]) },
      {
        id: "generation",
        label: "generation",
        options: opts([...new Set(rows.map((r) => String(r.generation)))]),
      },
      ...(swept ? [{ id: "ceiling", label: "ceiling", options: opts(["none", ...caps.map(String)]) }] : []),
      { id: "validity", label: "validity", options: opts(VALIDITY) },
      { id: "repair", label: "repair", options: opts(REPAIR) },
    ],
    items,
    contexts: contextList,
  };
}
