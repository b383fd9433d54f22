/**
 * The shared parts of the HTML reports ({@link safeHtml} escaping, page shell, tables, facts, figures): single
 * self-contained files (opened air-gapped), the same input giving byte-identical HTML.
 * @module
 */
import { type Cell, formatCell, markdownTable } from "../core/markdown_table.ts";
import { type AnsweringModels, modelsFact } from "../core/answering_models.ts";

/** Markup that is safe to insert as is: made by {@link safeHtml}, {@link rawHtml} or the helpers built on them. */
export class Html {
  constructor(readonly markup: string) {}

  toString(): string {
    return this.markup;
  }
}

export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

/** Escapes text for use in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function render(value: HtmlValue, escape = escapeHtml): string {
  if (value instanceof Html) return value.markup;
  if (value === null || value === undefined || value === false) return "";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return escape(value);
  return value.map((v) => render(v, escape)).join("");
}

/** A template tag escaping every interpolated string; {@link Html} goes in unchanged, null/false as nothing. */
export function safeHtml(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** How the two reports write the same text: REPORT.md (Markdown, nothing escaped) or report.html. */
export interface ReportFormat {
  markdown: boolean;
  /** A template tag: {@link safeHtml} in HTML; in Markdown the same join with nothing escaped. */
  text(strings: TemplateStringsArray, ...values: HtmlValue[]): Html;
  /** Inline code: `` `x` `` or `<code>x</code>`. */
  code(text: string): Html;
  /** A line break inside a Markdown list item; a space in HTML. */
  br: Html;
}

/** REPORT.md's {@link ReportFormat}: its {@link Html} values hold Markdown. */
export const MARKDOWN: ReportFormat = {
  markdown: true,
  text: (strings, ...values) =>
    new Html(strings.reduce((out, s, i) => out + render(values[i - 1], (x) => x) + s)),
  code: (text) => new Html(`\`${text}\``),
  br: new Html("\n  "),
};

/** report.html's {@link ReportFormat}. */
export const HTML: ReportFormat = { markdown: false, text: safeHtml, code, br: new Html(" ") };

/** `chat <asked> (answered by <…>), …` in a format, every model name as code. */
export function modelsFactIn(
  f: ReportFormat,
  requested: { chat_model: string; decision_model: string },
  models: AnsweringModels,
): Html {
  return new Html(modelsFact(requested, models, (name) => f.code(name).markup));
}

/** A run's facts as REPORT.md lists them (report.html: {@link factList}). */
export function factsMarkdown(items: readonly Html[]): string {
  return items.map((item) => `- ${item.markup}`).join("\n");
}

/** Wraps markup written by this program (never user text) as {@link Html}. */
export function rawHtml(markup: string): Html {
  return new Html(markup);
}

const PAGE_CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 24px 28px 48px; background: #fff; color: #1b1f24;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
h1 { font-size: 1.6em; margin: 0 0 0.6em; line-height: 1.25; }
h2 { font-size: 1.25em; margin: 1.8em 0 0.6em; padding-bottom: 0.2em; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 1.05em; margin: 1.4em 0 0.5em; }
p, ul { margin: 0.5em 0; }
ul.facts { padding-left: 1.3em; }
ul.facts li { margin: 0.15em 0; }
code { font: 0.88em/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f3f4f6;
  padding: 0.05em 0.3em; border-radius: 3px; overflow-wrap: anywhere; }
.banner { border: 1px solid #d4a72c; border-left: 6px solid #bf8700; background: #fff8c5; padding: 10px 14px;
  margin: 1em 0; border-radius: 4px; }
.note { color: #57606a; font-size: 0.92em; }
.table-wrap { overflow-x: auto; margin: 0.8em 0; }
table { border-collapse: collapse; font-size: 0.9em; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: 4px 9px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
td.num, th.num { text-align: right; }
td.num { white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fafbfc; }
figure { margin: 1.2em 0; break-inside: avoid; page-break-inside: avoid; }
figcaption { font-weight: 600; margin-bottom: 0.3em; }
figure svg { display: block; max-width: 100%; height: auto; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  .table-wrap { overflow: visible; }
  table, .banner { break-inside: avoid; page-break-inside: avoid; }
  h2, h3 { break-after: avoid; page-break-after: avoid; }
}
`;

export interface HtmlPageOptions {
  title: string;
  body: Html;
}

/** A complete single-file HTML document with the shared inline stylesheet. */
export function htmlPage(options: HtmlPageOptions): string {
  return safeHtml`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${options.title}</title>
<style>${rawHtml(PAGE_CSS)}</style>
</head>
<body>
${options.body}
</body>
</html>
`.markup;
}

export type ColumnAlign = "left" | "right";

export interface HtmlTableOptions {
  digits?: number;
  /** Per column; by default right-aligned when every cell is a number or null. */
  align?: readonly ColumnAlign[];
}

/** A table whose cells are formatted like the Markdown reports' (`formatCell`); text is escaped. */
export function htmlTable(
  headers: readonly string[],
  rows: readonly Cell[][],
  options: HtmlTableOptions = {},
): Html {
  const digits = options.digits ?? 3;
  const align = options.align ??
    headers.map((_, i) =>
      rows.length > 0 && rows.every((r) => typeof r[i] === "number" || r[i] === null) ? "right" : "left"
    );
  const cls = (i: number) => (align[i] === "right" ? "num" : null);
  const th = headers.map((h, i) =>
    safeHtml`<th${cls(i) ? safeHtml` class="num"` : ""} scope="col">${h}</th>`
  );
  const body = rows.map((row) =>
    safeHtml`<tr>${
      row.map((c, i) => safeHtml`<td${cls(i) ? safeHtml` class="num"` : ""}>${formatCell(c, digits)}</td>`)
    }</tr>\n`
  );
  return safeHtml`<div class="table-wrap"><table>
<thead><tr>${th}</tr></thead>
<tbody>
${body}</tbody>
</table></div>`;
}

/** A bulleted list of run facts; each item is markup or plain text. */
export function factList(items: readonly (Html | string)[]): Html {
  return safeHtml`<ul class="facts">
${items.map((item) => safeHtml`<li>${item}</li>\n`)}</ul>`;
}

/** A highlighted notice, e.g. the reference-model banner. */
export function banner(content: Html | string): Html {
  return safeHtml`<div class="banner" role="note">${content}</div>`;
}

/** Plain text as paragraphs, split at blank lines; single line breaks become spaces. */
export function paragraphs(text: string, className?: string): Html {
  const parts = text.split(/\n\s*\n/).map((p) => p.replace(/\s*\n\s*/g, " ").trim()).filter((p) => p !== "");
  return safeHtml`${
    parts.map((p) => safeHtml`<p${className ? safeHtml` class="${className}"` : ""}>${p}</p>\n`)
  }`;
}

/** Inline code (escaped). */
export function code(text: string): Html {
  return safeHtml`<code>${text}</code>`;
}

/** A chart (or other content) with a caption. */
export function figure(caption: string, content: Html): Html {
  return safeHtml`<figure>
<figcaption>${caption}</figcaption>
${content}
</figure>`;
}

/** A section REPORT.md and report.html both show: a heading (`level` 2 or 3), an optional note, a table. */
export interface TableSection {
  level: 2 | 3;
  heading: string;
  note?: string;
  headers: string[];
  rows: Cell[][];
}

/** The section in Markdown: a blank line, the heading, the note, the table, a newline. */
export function sectionMarkdown(s: TableSection): string {
  const note = s.note === undefined ? "" : `${s.note}\n\n`;
  return `\n${"#".repeat(s.level)} ${s.heading}\n\n${note}${markdownTable(s.headers, s.rows)}\n`;
}

/** Sections in HTML, one after another with a newline between. */
export function sectionsHtml(sections: readonly TableSection[]): Html {
  return rawHtml(sections.map((s) => sectionHtml(s).markup).join("\n"));
}

/** The section in HTML: the heading, the note as paragraphs, the table. */
export function sectionHtml(s: TableSection): Html {
  return safeHtml`<h${s.level}>${s.heading}</h${s.level}>
${s.note === undefined ? "" : paragraphs(s.note, "note")}${htmlTable(s.headers, s.rows)}`;
}
