/**
 * Outside text made safe to print: control and bidi characters shown as escapes, no live HTML in Markdown.
 * @module
 */

/** C0 and C1 controls, DEL, and the bidi embedding, override and isolate characters. */
const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * `text` with every control character and bidi control shown as an escape (`keepLineBreaks`: `\n` stays).
 * @example
 * ```ts
 * terminalSafe("x\nok: every check holds\u001b[2J"); // "x\\nok: every check holds\\u001b[2J"
 * ```
 */
export function terminalSafe(text: string, options: { keepLineBreaks?: boolean } = {}): string {
  return text.replace(
    UNPRINTABLE,
    (char) =>
      options.keepLineBreaks && char === "\n"
        ? char
        : NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * {@link terminalSafe} with `&`, `<`, `>` as entities and `|` escaped, for a Markdown table cell or list item.
 * @example
 * ```ts
 * markdownSafe("<img src=x onerror=alert(1)> | x"); // "&lt;img src=x onerror=alert(1)&gt; \\| x"
 * ```
 */
export function markdownSafe(text: string): string {
  return terminalSafe(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /\|/g,
    "\\|",
  );
}
