/**
 * Counting the tokens of one pre-token from prebuilt merges (`bpe_ranks.ts`), merging byte-level symbol ids as
 * the library's BPE does (lowest rank, leftmost first); the count is the parts left.
 * @module
 */
import type { MergeTable } from "./bpe_ranks.ts";

export type PreTokenPartCounter = (preToken: string) => number;

/** Words of up to this many bytes are merged by scanning; longer ones through a heap. */
export const SCAN_LIMIT = 64;

/** 2^32: a heap key is rank × 2^32 + position (exact in a double for ranks below 2^20). */
const POSITION_SPAN = 4294967296;

/** A {@link PreTokenPartCounter} over `merges`, `byteIds[b]` being the id of byte `b`'s symbol. */
export function bpePartCounter(merges: MergeTable, byteIds: Int32Array): PreTokenPartCounter {
  const encoder = new TextEncoder();
  let bytes = new Uint8Array(1024);
  let ids = new Int32Array(1024);
  let ranks = new Int32Array(1024);
  return (text) => {
    const length = text.length;
    if (ids.length < length * 3) {
      bytes = new Uint8Array(length * 3);
      ids = new Int32Array(length * 3);
      ranks = new Int32Array(length * 3);
    }
    let n = 0;
    for (; n < length; n++) {
      const unit = text.charCodeAt(n);
      if (unit >= 0x80) break;
      ids[n] = byteIds[unit];
    }
    if (n < length) {
      // Not ASCII: TextEncoder's UTF-8 (a lone surrogate as U+FFFD), as the library.
      n = encoder.encodeInto(text, bytes).written;
      for (let i = 0; i < n; i++) ids[i] = byteIds[bytes[i]];
    }
    return n <= SCAN_LIMIT ? mergeByScan(merges, ids, ranks, n) : mergeByHeap(merges, ids, n);
  };
}

/** Merges `ids[0..n)` in place, scanning for the lowest rank each time; returns the parts left. */
function mergeByScan(merges: MergeTable, ids: Int32Array, ranks: Int32Array, n: number): number {
  for (let i = 0; i + 1 < n; i++) ranks[i] = merges.rank(ids[i], ids[i + 1]);
  while (n > 1) {
    let best = -1;
    let bestRank = 0;
    for (let i = 0; i + 1 < n; i++) {
      const rank = ranks[i];
      if (rank >= 0 && (best < 0 || rank < bestRank)) {
        best = i;
        bestRank = rank;
      }
    }
    if (best < 0) break;
    ids[best] = merges.result(bestRank);
    n--;
    for (let i = best + 1; i < n; i++) {
      ids[i] = ids[i + 1];
      ranks[i] = ranks[i + 1];
    }
    if (best > 0) ranks[best - 1] = merges.rank(ids[best - 1], ids[best]);
    if (best + 1 < n) ranks[best] = merges.rank(ids[best], ids[best + 1]);
  }
  return n;
}

class MinHeap {
  #items: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.#items = new Float64Array(Math.max(capacity, 1));
  }

  push(value: number): void {
    if (this.size === this.#items.length) {
      const grown = new Float64Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    const items = this.#items;
    let at = this.size++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (items[parent] <= value) break;
      items[at] = items[parent];
      at = parent;
    }
    items[at] = value;
  }

  pop(): number {
    const items = this.#items;
    const top = items[0];
    const last = items[--this.size];
    let at = 0;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && items[child + 1] < items[child]) child++;
      if (items[child] >= last) break;
      items[at] = items[child];
      at = child;
    }
    items[at] = last;
    return top;
  }
}

/** Merges `ids[0..n)` over a linked list, pairs from a heap keyed by (rank, position); returns the parts left. */
function mergeByHeap(merges: MergeTable, ids: Int32Array, n: number): number {
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const heap = new MinHeap(n * 2);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
    if (i + 1 < n) {
      const rank = merges.rank(ids[i], ids[i + 1]);
      if (rank >= 0) heap.push(rank * POSITION_SPAN + i);
    }
  }
  let parts = n;
  while (heap.size > 0) {
    const key = heap.pop();
    const rank = Math.floor(key / POSITION_SPAN);
    const at = key - rank * POSITION_SPAN;
    const right = next[at];
    if (ids[at] < 0 || right < 0 || merges.rank(ids[at], ids[right]) !== rank) continue;
    ids[at] = merges.result(rank);
    ids[right] = -1;
    next[at] = next[right];
    if (next[right] >= 0) prev[next[right]] = at;
    parts--;
    const before = prev[at];
    if (before >= 0) {
      const merged = merges.rank(ids[before], ids[at]);
      if (merged >= 0) heap.push(merged * POSITION_SPAN + before);
    }
    if (next[at] >= 0) {
      const merged = merges.rank(ids[at], ids[next[at]]);
      if (merged >= 0) heap.push(merged * POSITION_SPAN + at);
    }
  }
  return parts;
}
