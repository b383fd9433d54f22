/**
 * A count cache keyed by the counted text itself, bounded in entries and total characters (oldest dropped
 * first): exact, and cheaper than hashing the text.
 *
 * A key is stored as a copy: a V8 substring may hold its whole parent alive, so a cached line never keeps the
 * prompt it was cut from. Copies are made on insertion only; lookups allocate nothing.
 *
 * @module
 */

/** A string with the same text as `text` that holds no other string alive (see the module doc). */
export function detachedCopy(text: string): string {
  // Slicing a concatenation flattens it first (V8): the result is a new string, or a slice of a new string
  // one character longer, never a slice of `text`'s parent.
  return (" " + text).slice(1);
}

/** Counts keyed by their text, at most `maxEntries` entries and `maxChars` characters of keys in all. */
export class TextCountCache {
  readonly #counts = new Map<string, number>();
  /**
   * The keys in insertion order from `#head` on. The oldest key is found here rather than as the map's first
   * key: V8 leaves a deleted entry's slot in place until the table is rebuilt, and finding the first live key
   * steps over every such slot, so evicting one entry at a time from a full map cost time in its size.
   */
  #order: string[] = [];
  #head = 0;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;

  /** A cache of at most `maxEntries` entries whose keys total at most `maxChars` UTF-16 units. */
  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  /** Entries held. */
  get size(): number {
    return this.#counts.size;
  }

  /** Characters of the keys held. */
  get chars(): number {
    return this.#chars;
  }

  /** The count of `text`, if cached. */
  get(text: string): number | undefined {
    return this.#counts.get(text);
  }

  /**
   * Caches the count of `text`, dropping the oldest entries while the bounds would be exceeded. A text longer
   * than the character bound is not cached.
   */
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
