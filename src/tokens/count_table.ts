/**
 * A count cache for short texts keyed by their exact characters in an open-addressing table of typed arrays.
 * @module
 */

/** FNV-1a over the UTF-16 units of `text`, as a signed 32-bit integer (what the `Int32Array` holds). */
function unitsHash(text: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash;
}

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
