/**
 * Finding a lone surrogate in parsed JSON, so that every loader refuses one the same way, naming the file and
 * the place. A text decoded from valid UTF-8 holds none; JSON's `\uD800` escapes can make one, which no UTF-8
 * file can store and a run's canonical JSON refuses later (a run that `--resume` could not finish).
 *
 * @module
 */

/** Escapes of a surrogate code unit in JSON text (`\uD800`–`\uDFFF`): without one, parsed JSON holds none. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * The path (`$.messages[1].content`, keys included) of the first string of `value` holding a lone surrogate,
 * else null; `text` is the JSON it was parsed from (most texts are passed over without a walk). The walk keeps
 * its own stack, so a deeply nested value costs no call depth.
 *
 * @example
 * ```ts
 * const text = '{"a": ["\\ud800"]}';
 * loneSurrogatePath(text, JSON.parse(text)); // "$.a[0]"
 * ```
 */
export function loneSurrogatePath(text: string, value: unknown): string | null {
  if (!SURROGATE_ESCAPE.test(text)) return null;
  const stack: [unknown, string][] = [[value, "$"]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === "string") {
      if (!item.isWellFormed()) return path;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${path}[${i}]`]);
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, inner] = entries[i];
        const at = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key)
          ? `${path}.${key}`
          : `${path}[${JSON.stringify(key)}]`;
        if (!key.isWellFormed()) return at;
        stack.push([inner, at]);
      }
    }
  }
  return null;
}
