/**
 * The sweep explorer's data: one item per generation and context kind, with the facts each answer met, the
 * repair checks passed or failed with their reason, each answer, and the context itself. Filters: context
 * kind, generation, validity, and "all repair checks passed" / "a repair check failed".
 *
 * @module
 */
import type { ChatMessage } from "../../models/messages.ts";
import type { SweepResultRow } from "./run_suite.ts";
import type { ExplorerData, ExplorerItem, ExplorerSection } from "../../report/explorer.ts";

/** Builds the explorer data of a sweep run (contexts by the context hash recorded in each row). */
export function sweepExplorer(
  rows: readonly (SweepResultRow & { context_hash?: string | null })[],
  contexts: ReadonlyMap<string, ChatMessage[]>,
): ExplorerData {
  const groups = new Map<string, (SweepResultRow & { context_hash?: string | null })[]>();
  for (const r of rows) {
    const cap = (r as { input_cap?: number | null }).input_cap;
    const key = `gen=${r.generation} ${r.kind}${typeof cap === "number" ? ` @${cap}` : ""}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const contextList: ChatMessage[][] = [];
  const contextIndex = new Map<string, number>();
  const items: ExplorerItem[] = [...groups].map(([id, mine]) => {
    const first = mine[0];
    const sections: ExplorerSection[] = [
      {
        heading: "Condition",
        open: true,
        facts: [
          ["context kind", first.kind],
          ["generation", String(first.generation)],
          ["context tokens", first.context_tokens === null ? "n/a" : String(first.context_tokens)],
          ["within ceiling", first.within_cap === null ? "n/a" : first.within_cap ? "yes" : "no"],
        ],
      },
    ];
    for (const r of mine) {
      sections.push({
        heading: `Answer ${r.answer_index}: ${
          r.status === "ok" ? "ok" : `invalid (${r.reason ?? ""})`
        } · facts ${r.facts.filter((f) => f.passed).length}/${r.facts.length} · repair ${
          r.repair_all_passed ? "passed" : "failed"
        }`,
        open: r.answer_index === 0,
        table: {
          headers: ["check", "result", "reason"],
          rows: [
            ...r.facts.map((f) => [`fact: ${f.name}`, f.passed ? "✓ met" : "✗ not met", ""]),
            ...r.repair.map((
              c,
            ) => [`repair: ${c.name}`, c.passed ? "✓ passed" : "✗ failed", c.detail]),
          ],
        },
      });
      sections.push({
        heading: `Answer ${r.answer_index} text`,
        facts: [["answer", r.answer_text ?? "(none)"]],
      });
    }
    const hash = first.context_hash ?? null;
    const messages = hash ? contexts.get(hash) : undefined;
    if (messages) {
      let index = contextIndex.get(hash!);
      if (index === undefined) {
        index = contextList.length;
        contextList.push(messages);
        contextIndex.set(hash!, index);
      }
      sections.push({ heading: "Context", context: index });
    } else if (hash) {
      sections.push({ heading: "Context: not built" });
    }
    return {
      id,
      label: first.kind,
      tags: {
        kind: [first.kind],
        generation: [String(first.generation)],
        validity: [mine.every((r) => r.status === "ok") ? "all answers valid" : "has an invalid answer"],
        repair: [
          mine.some((r) => r.repair_all_passed)
            ? "an answer passed all checks"
            : "no answer passed all checks",
        ],
      },
      sections,
    };
  });
  const opts = (values: string[]) => values.map((v) => ({ value: v, label: v }));
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
      { id: "validity", label: "validity", options: opts(["all answers valid", "has an invalid answer"]) },
      {
        id: "repair",
        label: "repair",
        options: opts(["an answer passed all checks", "no answer passed all checks"]),
      },
    ],
    items,
    contexts: contextList,
  };
}
