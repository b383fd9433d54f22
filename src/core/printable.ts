/**
 * Outside text (an engine's reason, a file name found in a run folder, a model's output) made safe to print:
 * on a terminal no control character acts (an ESC cannot recolour or move the cursor, a line break cannot
 * forge a line such as `ok: every check holds`, a bidi override cannot reorder what follows), and in Markdown
 * no HTML is live (`<script>`, `<img onerror>`). The text stays readable: each such character is shown as its
 * escape (`\u001b`, `\n`).
 *
 * @module
 */

/** C0 and C1 controls, DEL, and the bidi embedding, override and isolate characters. */
const UNPRINTABLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * `text` with every control character and bidi control shown as an escape (`\n`, `\u001b`), so that printing
 * it shows exactly what it holds (`keepLineBreaks`: a message's own line breaks stay).
 *
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
 * {@link terminalSafe}, with HTML's `&`, `<` and `>` written as entities and `|` escaped, for a Markdown table
 * cell or list item: a renderer shows the characters and runs nothing.
 *
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
