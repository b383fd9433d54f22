/**
 * Finding a lone surrogate in parsed JSON, so every loader refuses one the same way, naming the place.
 * @module
 */

/** Escapes of a surrogate code unit in JSON text (`\uD800`–`\uDFFF`): without one, parsed JSON holds none. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * The path (`$.messages[1].content`) of the first string or key of `value` holding a lone surrogate, else null;
 * `text` is the JSON it was parsed from. The walk keeps its own stack (no call depth).
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
