/**
 * A count cache keyed by (a copy of) the text itself, bounded in entries and characters.
 * @module
 */

/** A string with the same text as `text` that holds no other string alive (see the module doc). */
export function detachedCopy(text: string): string {
  // Slicing a concatenation flattens it first (V8): never a slice of `text`'s parent.
  return (" " + text).slice(1);
}

/** Counts keyed by their text, at most `maxEntries` entries and `maxChars` characters of keys in all. */
export class TextCountCache {
  readonly #counts = new Map<string, number>();
  /** The keys in insertion order from `#head` on (finding a V8 `Map`'s first live key costs time in its size). */
  #order: string[] = [];
  #head = 0;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  get size(): number {
    return this.#counts.size;
  }

  get chars(): number {
    return this.#chars;
  }

  get(text: string): number | undefined {
    return this.#counts.get(text);
  }

  /** Caches the count of `text`, dropping the oldest while over the bounds (a text over `maxChars` is not cached). */
  set(text: string, count: number): void {
    if (text.length > this.#maxChars) return;
    const counts = this.#counts;
    const known = counts.get(text);
    if (known !== undefined) {
      counts.set(text, count);
      return;
    }
    while (
      counts.size > 0 && (counts.size >= this.#maxEntries || this.#chars + text.length > this.#maxChars)
    ) {
      const oldest = this.#order[this.#head++];
      counts.delete(oldest);
      this.#chars -= oldest.length;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
    const key = detachedCopy(text);
    counts.set(key, count);
    this.#order.push(key);
    this.#chars += text.length;
  }
}
