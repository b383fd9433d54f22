/**
 * A map bounded in entries that drops its oldest entry first, in constant time.
 * @module
 */

/**
 * A `Map` of at most `limit` entries; a new key when full drops the oldest (updating keeps its place).
 * @example
 * ```ts
 * const memo = new FifoMap<string, number>(2);
 * memo.set("a", 1); memo.set("b", 2); memo.set("c", 3); // "a" is dropped
 * ```
 */
export class FifoMap<K, V> {
  readonly #map = new Map<K, V>();
  #order: K[] = [];
  #head = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Sets `key`, dropping the oldest entry first when the map is full and `key` is new. */
  set(key: K, value: V): this {
    if (!this.#map.has(key)) {
      if (this.#map.size >= this.#limit) this.#map.delete(this.#order[this.#head++]);
      if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
        this.#order = this.#order.slice(this.#head);
        this.#head = 0;
      }
      this.#order.push(key);
    }
    this.#map.set(key, value);
    return this;
  }
}
