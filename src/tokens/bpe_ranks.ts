/**
 * The prebuilt BPE merges of a tokenizer directory: `bpe_ranks.bin` beside `tokenizer.json` (made by
 * `scripts/gen_bpe_ranks.ts`), so counting needs neither the library's vocabulary nor string-keyed merges.
 * Format: a JSON header line padded with spaces to a multiple of 4 bytes; per merge rank three little-endian u32
 * (left id, right id or -1, result id); then the {@link MergeTable}'s slots. Made only when merges close over
 * the vocabulary (counts then equal `encode`'s); a file of another `tokenizer.json` hash is not used. A
 * pre-token is counted from them as the library's BPE merges (lowest rank, leftmost first): the parts left.
 * @module
 */
import { z } from "zod";
import { parseJson } from "../core/json_read.ts";

export const BPE_RANKS_FILE = "bpe_ranks.bin";

export const BPE_RANKS_FORMAT = "compaction-bench/bpe-ranks@3";

const BpeRanksHeaderSchema = z.object({
  format: z.literal(BPE_RANKS_FORMAT),
  tokenizer_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  merges: z.number().int().nonnegative(),
  /** Slots of the merge table (a power of two, at least twice the merges), after the merges. */
  slots: z.number().int().positive(),
  pairs: z.number().int().nonnegative(),
  /** The vocabulary id of the byte-level symbol of each byte 0–255. */
  byte_ids: z.array(z.number().int().nonnegative()).length(256),
  /** `tokenizer.json` with `model.vocab` = `{}` and `model.merges` = `[]`. */
  outline: z.object({ model: z.object({ type: z.literal("BPE") }).loose() }).loose(),
});

const MERGE_WIDTH = 3;

function pairHash(left: number, right: number): number {
  let hash = Math.imul(left ^ Math.imul(right, 0x9e3779b1), 0x85ebca6b);
  hash ^= hash >>> 15;
  return Math.imul(hash, 0xc2b2ae35) ^ (hash >>> 13);
}

/** The number of slots of the merge table of `count` merges: the least power of two at least twice as many. */
function tableCapacity(count: number): number {
  let capacity = 1;
  while (capacity < count * 2) capacity *= 2;
  return capacity;
}

/** The merges as an open-addressing hash table over id pairs; a pair listed twice keeps its last rank. */
export class MergeTable {
  readonly #merges: Int32Array;
  /** Slot → rank + 1 (0: empty). */
  readonly #slots: Int32Array;
  readonly #mask: number;
  readonly size: number;

  /** The table of `merges` (left, right, result id per rank); `prebuilt` slots and pairs are taken as they are. */
  constructor(merges: Int32Array, prebuilt?: { slots: Int32Array; pairs: number }) {
    const { slots, pairs } = prebuilt ?? MergeTable.#build(merges);
    this.#merges = merges;
    this.#slots = slots;
    this.#mask = slots.length - 1;
    this.size = pairs;
  }

  static #build(merges: Int32Array): { slots: Int32Array; pairs: number } {
    const count = Math.floor(merges.length / MERGE_WIDTH);
    const capacity = tableCapacity(count);
    const slots = new Int32Array(capacity);
    const mask = capacity - 1;
    let distinct = 0;
    for (let rank = 0; rank < count; rank++) {
      const left = merges[rank * MERGE_WIDTH];
      const right = merges[rank * MERGE_WIDTH + 1];
      let slot = pairHash(left, right) & mask;
      for (;;) {
        const held = slots[slot];
        if (held === 0) {
          slots[slot] = rank + 1;
          distinct++;
          break;
        }
        const at = (held - 1) * MERGE_WIDTH;
        if (merges[at] === left && merges[at + 1] === right) {
          slots[slot] = rank + 1; // a repeated merge: the last rank, as Map.set
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    return { slots, pairs: distinct };
  }

  /** The rank of merging `left` then `right` (vocabulary ids), or -1 where they do not merge. */
  rank(left: number, right: number): number {
    const merges = this.#merges;
    let slot = pairHash(left, right) & this.#mask;
    for (;;) {
      const held = this.#slots[slot];
      if (held === 0) return -1;
      const at = (held - 1) * MERGE_WIDTH;
      if (merges[at] === left && merges[at + 1] === right) return held - 1;
      slot = (slot + 1) & this.#mask;
    }
  }

  result(rank: number): number {
    return this.#merges[rank * MERGE_WIDTH + 2];
  }

  get slots(): Int32Array {
    return this.#slots;
  }
}

/** A read {@link BPE_RANKS_FILE}: the outline, the merges, the byte-level symbols' ids. */
export interface BpeRanks {
  outline: Record<string, unknown>;
  merges: MergeTable;
  byteIds: Int32Array;
}

/** The 256 symbols GPT-2's byte-level mapping gives the bytes 0–255 (Hugging Face `ByteLevel`). */
export function byteLevelSymbols(): string[] {
  const symbols: string[] = [];
  let next = 256;
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) ||
      (byte >= 0xae && byte <= 0xff);
    symbols.push(String.fromCodePoint(printable ? byte : next++));
  }
  return symbols;
}

const ModelSchema = z.object({
  type: z.literal("BPE"),
  vocab: z.record(z.string(), z.number().int().nonnegative()),
  merges: z.array(z.union([z.string(), z.tuple([z.string(), z.string()])])),
  dropout: z.null().optional(),
  unk_token: z.null().optional(),
  byte_fallback: z.literal(false).optional(),
  ignore_merges: z.literal(false).optional(),
  end_of_word_suffix: z.union([z.literal(""), z.null()]).optional(),
  continuing_subword_suffix: z.union([z.literal(""), z.null()]).optional(),
}).loose();

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The bytes of {@link BPE_RANKS_FILE} for a parsed `tokenizer.json`, or why prebuilt counts would not be exact. */
export function bpeRanksBytes(
  tokenizerJson: unknown,
  sha256: string,
): { bytes: Uint8Array } | { refused: string } {
  const json = tokenizerJson as { model?: unknown; pre_tokenizer?: unknown };
  const model = ModelSchema.safeParse(json.model);
  if (!model.success) {
    return { refused: `model: ${model.error.issues[0]?.path.join(".")}: ${model.error.issues[0]?.message}` };
  }
  const pre = json.pre_tokenizer as { type?: string; pretokenizers?: { type?: string }[] } | null | undefined;
  const steps = pre?.type === "Sequence" ? pre.pretokenizers ?? [] : [];
  if (steps.at(-1)?.type !== "ByteLevel") return { refused: "the pre-tokenizer does not end with ByteLevel" };
  const vocab = model.data.vocab;
  const ids = Object.values(vocab);
  if (new Set(ids).size !== ids.length) return { refused: "two vocabulary entries share an id" };
  const idOf = (token: string) => Object.hasOwn(vocab, token) ? vocab[token] : -1;
  const symbols = byteLevelSymbols();
  const missing = symbols.find((symbol) => !Object.hasOwn(vocab, symbol));
  if (missing !== undefined) {
    return { refused: `byte-level symbol ${JSON.stringify(missing)} is not in the vocabulary` };
  }
  const merges = new Int32Array(model.data.merges.length * MERGE_WIDTH);
  for (const [rank, merge] of model.data.merges.entries()) {
    // As the library reads merges: "a b" is split at its first space.
    const [left, right] = typeof merge === "string" ? merge.split(" ", 2) : merge;
    if (right === undefined) return { refused: `merge ${rank} has no right part` };
    const result = idOf(left + right);
    if (result < 0) return { refused: `merge ${rank}'s result is not in the vocabulary` };
    merges.set([idOf(left), idOf(right), result], rank * MERGE_WIDTH);
  }
  const outline = { ...json, model: { ...model.data, vocab: {}, merges: [] } };
  const table = new MergeTable(merges);
  const header = {
    format: BPE_RANKS_FORMAT,
    tokenizer_sha256: sha256,
    merges: model.data.merges.length,
    slots: table.slots.length,
    pairs: table.size,
    byte_ids: symbols.map((symbol) => vocab[symbol]),
    outline,
  };
  const headerText = JSON.stringify(header);
  const lineLength = new TextEncoder().encode(headerText).length + 1;
  const headerBytes = new TextEncoder().encode(`${headerText}${" ".repeat((4 - lineLength % 4) % 4)}\n`);
  const bytes = new Uint8Array(headerBytes.length + merges.byteLength + table.slots.byteLength);
  bytes.set(headerBytes);
  const body = new DataView(bytes.buffer, headerBytes.length);
  for (let i = 0; i < merges.length; i++) body.setInt32(i * 4, merges[i], true);
  for (let i = 0; i < table.slots.length; i++) body.setInt32((merges.length + i) * 4, table.slots[i], true);
  return { bytes };
}

function bodyIntegers(bytes: Uint8Array, start: number, count: number): Int32Array {
  if (LITTLE_ENDIAN && (bytes.byteOffset + start) % 4 === 0) {
    return new Int32Array(bytes.buffer, bytes.byteOffset + start, count);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, count * 4);
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

/**
 * The bytes of the regular file `path`, read into one buffer of its size: `Deno.readFile` grows its buffer as it
 * reads, touching twice the pages (the 3.9 MB file: 4.5 ms of CPU, not 2.8). Anything else (a file that cannot
 * be opened, is not regular, or grew while read) is read by `Deno.readFile`, with its errors, as before.
 */
async function readWholeFile(path: string): Promise<Uint8Array> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch {
    return await Deno.readFile(path);
  }
  using _ = file;
  const info = await file.stat();
  if (!info.isFile) return await Deno.readFile(path);
  const bytes = new Uint8Array(info.size);
  let filled = 0;
  while (filled < bytes.length) {
    const n = await file.read(bytes.subarray(filled));
    if (n === null) return bytes.subarray(0, filled);
    filled += n;
  }
  return (await file.read(new Uint8Array(1))) === null ? bytes : await Deno.readFile(path);
}

/** The prebuilt merges in `dir` when its {@link BPE_RANKS_FILE} is whole, current and of `tokenizerSha256`; else null. */
export async function readBpeRanks(dir: string, tokenizerSha256: string): Promise<BpeRanks | null> {
  let bytes: Uint8Array;
  try {
    bytes = await readWholeFile(`${dir}/${BPE_RANKS_FILE}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const headerEnd = bytes.indexOf(0x0a);
  if (headerEnd < 0) return null;
  let header: z.infer<typeof BpeRanksHeaderSchema>;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, headerEnd));
    const parsed = BpeRanksHeaderSchema.safeParse(parseJson(text));
    if (!parsed.success) return null;
    header = parsed.data;
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) return null;
    throw error;
  }
  const start = headerEnd + 1;
  const integers = header.merges * MERGE_WIDTH;
  if (
    header.tokenizer_sha256 !== tokenizerSha256 || header.slots !== tableCapacity(header.merges) ||
    bytes.length - start !== (integers + header.slots) * 4
  ) {
    return null;
  }
  const slots = bodyIntegers(bytes, start + integers * 4, header.slots);
  if (slots.indexOf(0) < 0) return null;
  return {
    outline: header.outline,
    merges: new MergeTable(bodyIntegers(bytes, start, integers), { slots, pairs: header.pairs }),
    byteIds: Int32Array.from(header.byte_ids),
  };
}

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
