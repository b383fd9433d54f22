/**
 * A per-item explorer embedded in a report page: one self-contained block (inline JSON data and an inline
 * script; nothing is loaded, so it works from `file://` on an air-gapped box). Items are questions (hotpot),
 * generations × contexts (sweep) or needles/probes (engines); each has an id, a label, filter tags and
 * sections (key/value facts, tables, and contexts rendered on demand with marked lines).
 *
 * Every text is interned once in a shared string table and referenced by index, so a context line that
 * occurs in many contexts (the same article in Full and in a compacted context) is stored once. The data is
 * JSON inside `<script type="application/json">` with `<` written as `\u003c`, so no text can close the
 * script element; the script builds the page with `textContent` only, never as markup.
 *
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
  /** Option values and their labels; the empty "all" option is added by the page. */
  options: { value: string; label: string }[];
}

/** One section of an item's detail view (table cells starting with ✓ or ✗ are coloured as kept or lost). */
export interface ExplorerSection {
  heading: string;
  /** Label/value facts. */
  facts?: [string, string][];
  /** A table; cells are text. */
  table?: { headers: string[]; rows: string[][] };
  /** Index of a context in {@link ExplorerData.contexts}, shown collapsed. */
  context?: number;
  /** Texts whose lines are marked in the context (e.g. gold supporting sentences). */
  marks?: string[];
  /** Open the section initially. */
  open?: boolean;
}

/** One explorable item. */
export interface ExplorerItem {
  id: string;
  label: string;
  tags: Record<string, string[]>;
  sections: ExplorerSection[];
}

/** Everything an explorer shows. */
export interface ExplorerData {
  title: string;
  /** What one item is ("question", "generation × context", "needle"). */
  itemName: string;
  filters: ExplorerFilter[];
  items: ExplorerItem[];
  /** Contexts as chat messages. */
  contexts: ChatMessage[][];
}

/** Interns strings: each distinct text gets one index. */
class StringTable {
  readonly list: string[] = [];
  readonly #index = new Map<string, number>();
  id(text: string): number {
    let i = this.#index.get(text);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(text);
      this.#index.set(text, i);
    }
    return i;
  }
}

/**
 * The text shown for a message: its content, except that a tool result holding a JSON object with a string
 * `content` field is shown as that field's text (so its lines read, and are shared, like any other text).
 */
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

function packFilters(t: StringTable, filters: readonly ExplorerFilter[]): unknown {
  return filters.map((f) => ({
    id: f.id,
    label: t.id(f.label),
    options: f.options.map((o) => [t.id(o.value), t.id(o.label)]),
  }));
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
  const t = new StringTable();
  const contexts = data.contexts.map((messages) => packContext(t, messages));
  const title = t.id(data.title);
  const item = t.id(data.itemName);
  const filters = packFilters(t, data.filters);
  return { title, item, filters, items: data.items.map((i) => packItem(t, i)), contexts, strings: t.list };
}

/** Explorer data already packed (see {@link ExplorerPacker}). */
export interface PackedExplorer {
  itemName: string;
  itemCount: number;
  /** The compact JSON form, as {@link packExplorer} makes it. */
  packed: unknown;
}

/**
 * Packs an explorer's items and contexts as they are made, into one string table: a report of thousands of
 * items holds their packed form (indices), never every item as objects and strings. The texts are interned in
 * the order they are added, so the string table's order differs from {@link packExplorer}'s; the page reads
 * both alike.
 */
export class ExplorerPacker {
  readonly #t = new StringTable();
  readonly #items: unknown[] = [];
  readonly #contexts: unknown[] = [];

  /** Adds a context; returns its index (what a section's `context` names). */
  addContext(messages: readonly ChatMessage[]): number {
    this.#contexts.push(packContext(this.#t, messages));
    return this.#contexts.length - 1;
  }

  /** Adds the next item. */
  addItem(item: ExplorerItem): void {
    this.#items.push(packItem(this.#t, item));
  }

  /** The packed explorer, with its title, item name and filters. */
  finish(title: string, itemName: string, filters: readonly ExplorerFilter[]): PackedExplorer {
    const t = this.#t;
    const packed = {
      title: t.id(title),
      item: t.id(itemName),
      filters: packFilters(t, filters),
      items: this.#items,
      contexts: this.#contexts,
      strings: t.list,
    };
    return { itemName, itemCount: this.#items.length, packed };
  }
}

/** JSON safe inside a `<script>` element: `<` (and the JS line separators) escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/** The explorer block: a heading, a mount point, the data and the script (no network, no external files). */
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
