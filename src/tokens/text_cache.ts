/**
 * The count caches: one keyed by (a copy of) the text itself, bounded in entries and characters; one for short
 * texts keyed by their exact characters in an open-addressing table of typed arrays.
 * @module
 */

/** A string with the same text as `text` that holds no other string alive (a key of a cache). */
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

/** FNV-1a over the UTF-16 units of `text`, as a signed 32-bit integer (what the `Int32Array` holds). */
function unitsHash(text: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

/** Counts of short texts keyed by their exact characters in an open-addressing table of typed arrays. */
export class ShortTextCounts {
  readonly #maxEntries: number;
  readonly #maxLength: number;
  readonly #pool: Uint16Array;
  readonly #slots: Int32Array;
  readonly #mask: number;
  readonly #hashes: Int32Array;
  readonly #starts: Int32Array;
  readonly #lengths: Int32Array;
  readonly #counts: Int32Array;
  #size = 0;
  #used = 0;
  resets = 0;

  constructor(maxEntries: number, maxUnits: number, maxLength: number) {
    this.#maxEntries = maxEntries;
    this.#maxLength = maxLength;
    this.#pool = new Uint16Array(maxUnits);
    let capacity = 1;
    while (capacity < maxEntries * 2) capacity *= 2;
    this.#slots = new Int32Array(capacity);
    this.#mask = capacity - 1;
    this.#hashes = new Int32Array(maxEntries);
    this.#starts = new Int32Array(maxEntries);
    this.#lengths = new Int32Array(maxEntries);
    this.#counts = new Int32Array(maxEntries);
  }

  get size(): number {
    return this.#size;
  }

  /** The slot holding `text` (its entry + 1), or the empty slot where it would go (0 there). */
  #find(text: string, hash: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    let slot = hash & mask;
    for (;;) {
      const held = slots[slot];
      if (held === 0) return slot;
      const entry = held - 1;
      if (this.#hashes[entry] === hash && this.#lengths[entry] === text.length) {
        const pool = this.#pool;
        const start = this.#starts[entry];
        let i = 0;
        while (i < text.length && pool[start + i] === text.charCodeAt(i)) i++;
        if (i === text.length) return slot;
      }
      slot = (slot + 1) & mask;
    }
  }

  get(text: string): number {
    if (text.length > this.#maxLength) return -1;
    const held = this.#slots[this.#find(text, unitsHash(text))];
    return held === 0 ? -1 : this.#counts[held - 1];
  }

  /** Caches the count of `text` (a non-negative integer); empties the table first when it is full. */
  set(text: string, count: number): void {
    const length = text.length;
    if (length > this.#maxLength || length > this.#pool.length) return;
    const hash = unitsHash(text);
    let slot = this.#find(text, hash);
    const held = this.#slots[slot];
    if (held !== 0) {
      this.#counts[held - 1] = count;
      return;
    }
    if (this.#size >= this.#maxEntries || this.#used + length > this.#pool.length) {
      this.#slots.fill(0);
      this.#size = 0;
      this.#used = 0;
      this.resets++;
      slot = this.#find(text, hash);
    }
    const entry = this.#size++;
    const start = this.#used;
    for (let i = 0; i < length; i++) this.#pool[start + i] = text.charCodeAt(i);
    this.#used += length;
    this.#hashes[entry] = hash;
    this.#starts[entry] = start;
    this.#lengths[entry] = length;
    this.#counts[entry] = count;
    this.#slots[slot] = entry + 1;
  }
}
