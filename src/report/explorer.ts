/**
 * A per-item explorer embedded in a report page: inline JSON data (texts interned once, `<` escaped) and an
 * inline script that builds the page with `textContent`; works from `file://`.
 * @module
 */
import type { ChatMessage } from "../models/messages.ts";
import { EXPLORER_CSS, EXPLORER_SCRIPT } from "./explorer_script.ts";
import { type Html, rawHtml, safeHtml } from "./html.ts";
import { parseJson } from "../core/json_read.ts";

/** A filter offered above the item list: items match when their tags for it include the chosen value. */
export interface ExplorerFilter {
  id: string;
  label: string;
  /** Option values and their labels (the page adds "all"). */
  options: { value: string; label: string }[];
}

/** One section of an item's detail view (cells starting with ✓ or ✗ are coloured). */
export interface ExplorerSection {
  heading: string;
  facts?: [string, string][];
  table?: { headers: string[]; rows: string[][] };
  /** Index of a context in {@link ExplorerData.contexts}, shown collapsed. */
  context?: number;
  /** Texts whose lines are marked in the context (e.g. gold supporting sentences). */
  marks?: string[];
  open?: boolean;
}

export interface ExplorerItem {
  id: string;
  label: string;
  tags: Record<string, string[]>;
  sections: ExplorerSection[];
}

export interface ExplorerData {
  title: string;
  /** What one item is ("question", "needle"). */
  itemName: string;
  filters: ExplorerFilter[];
  items: ExplorerItem[];
  contexts: ChatMessage[][];
}

class StringTable {
  readonly list: string[] = [];
  readonly #index = new Map<string, number>();
  id(text: string): number {
    let i = this.#index.get(text);
    if (i === undefined) this.#index.set(text, i = this.list.push(text) - 1);
    return i;
  }
}

/** A message's shown text: its content, or a tool result's JSON `content` string field. */
function displayContent(m: ChatMessage): string {
  const content = m.content ?? "";
  if (m.role !== "tool" || !content.startsWith("{")) return content;
  try {
    const parsed = parseJson(content) as { content?: unknown } | null;
    if (parsed && typeof parsed === "object" && typeof parsed.content === "string") {
      const rest = Object.keys(parsed).filter((k) => k !== "content");
      return `(JSON tool result${
        rest.length ? ` with ${rest.join(", ")}` : ""
      }; its "content":)\n${parsed.content}`;
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return content;
}

function packContext(t: StringTable, messages: readonly ChatMessage[]): unknown {
  return messages.map((m) => {
    const text = [
      displayContent(m),
      ...(m.tool_calls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments})`),
    ].join("\n");
    return [t.id(m.role), text.split("\n").map((x) => t.id(x))];
  });
}

function packItem(t: StringTable, item: ExplorerItem): unknown {
  const ids = (texts: readonly string[]) => texts.map((x) => t.id(x));
  return {
    id: t.id(item.id),
    label: t.id(item.label),
    tags: Object.fromEntries(Object.entries(item.tags).map(([k, v]) => [k, ids(v)])),
    sections: item.sections.map((s) => ({
      h: t.id(s.heading),
      ...(s.facts ? { kv: s.facts.map(([k, v]) => [t.id(k), t.id(v)]) } : {}),
      ...(s.table ? { head: ids(s.table.headers), rows: s.table.rows.map(ids) } : {}),
      ...(s.context !== undefined ? { ctx: s.context } : {}),
      ...(s.marks && s.marks.length > 0 ? { marks: ids(s.marks) } : {}),
      ...(s.open ? { open: 1 } : {}),
    })),
  };
}

/** The compact JSON form of the data (string indices instead of texts). */
export function packExplorer(data: ExplorerData): unknown {
  const packer = new ExplorerPacker();
  for (const messages of data.contexts) packer.addContext(messages);
  return packer.finish(data.title, data.itemName, data.filters, data.items).packed;
}

/** Explorer data already packed (see {@link ExplorerPacker}). */
export interface PackedExplorer {
  itemName: string;
  itemCount: number;
  packed: unknown;
}

/** Packs an explorer's items and contexts into one string table as they are made (a large report holds indices). */
export class ExplorerPacker {
  readonly #t = new StringTable();
  readonly #items: unknown[] = [];
  readonly #contexts: unknown[] = [];

  addContext(messages: readonly ChatMessage[]): number {
    this.#contexts.push(packContext(this.#t, messages));
    return this.#contexts.length - 1;
  }

  addItem(item: ExplorerItem): void {
    this.#items.push(packItem(this.#t, item));
  }

  /** The packed explorer; `items` not added yet are packed after the title and filters. */
  finish(
    title: string,
    itemName: string,
    filters: readonly ExplorerFilter[],
    items: readonly ExplorerItem[] = [],
  ): PackedExplorer {
    const t = this.#t;
    const head = {
      title: t.id(title),
      item: t.id(itemName),
      filters: filters.map((f) => ({
        id: f.id,
        label: t.id(f.label),
        options: f.options.map((o) => [t.id(o.value), t.id(o.label)]),
      })),
    };
    for (const item of items) this.addItem(item);
    const packed = { ...head, items: this.#items, contexts: this.#contexts, strings: t.list };
    return { itemName, itemCount: this.#items.length, packed };
  }
}

/** JSON safe inside a `<script>` element: `<` and the JS line separators escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/** The explorer block: a heading, a mount point, the data and the script. */
export function explorerHtml(data: ExplorerData | PackedExplorer): Html {
  const { itemName, itemCount, packed } = "packed" in data
    ? data
    : { itemName: data.itemName, itemCount: data.items.length, packed: packExplorer(data) };
  return safeHtml`<h2 id="explorer-heading">Explorer: every ${itemName}</h2>
<style>${rawHtml(EXPLORER_CSS)}</style>
<div id="explorer" data-items="${itemCount}"><p class="note">The explorer needs JavaScript (inline; nothing is loaded from the network).</p></div>
<script type="application/json" id="explorer-data">${rawHtml(scriptJson(packed))}</script>
<script>${rawHtml(EXPLORER_SCRIPT)}</script>`;
}
