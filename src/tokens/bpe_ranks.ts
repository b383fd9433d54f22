/**
 * The prebuilt BPE ranks of a tokenizer directory: `bpe_ranks.jsonl` beside `tokenizer.json`, made from it by
 * `scripts/gen_bpe_ranks.ts`, so counting tokens does not wait for the tokenizer library to build its
 * vocabulary and merge maps from an 11 MB JSON file (most of a run's start-up otherwise).
 *
 * The file is JSON Lines. Line 1 is the header: the format, the SHA-256 of the `tokenizer.json` it was made
 * from, and that file's outline (every field but `model.vocab` and `model.merges`, which are emptied). Line
 * `2 + r` is the merge of rank `r` as the JSON array `[left, right]`, written exactly as the library keys its
 * merge map (`JSON.stringify([left, right])`): the lines become that map as they are.
 *
 * A count from it is the library's own: the library builds its tokenizer from the outline (normalizer,
 * pre-tokenizer, added tokens) and its own BPE merges each pre-token with these ranks. The count of a
 * pre-token is the number of parts the merges leave, which is the number of token ids `encode` gives only
 * when every part has an id: the file is made only when the merges close over the vocabulary (every merge's
 * result and every byte-level symbol is in it), no unknown token, no byte fallback, no suffixes, and merges
 * are not skipped for whole-vocabulary words (`ignore_merges`). Token ids (`encode`) still come from the
 * library built from `tokenizer.json` itself, on first use.
 *
 * The header's hash ties the file to one `tokenizer.json`: a file whose hash differs, or that is absent, is
 * not used (the tokenizer is then built from `tokenizer.json`, as before). `tests/tokens_bpe_ranks.test.ts`
 * checks that the shipped file is the one the script makes from the shipped tokenizer.
 *
 * @module
 */
import { z } from "zod";

/** The file name, beside `tokenizer.json`. */
export const BPE_RANKS_FILE = "bpe_ranks.jsonl";

/** The format named in the header line. */
export const BPE_RANKS_FORMAT = "compaction-bench/bpe-ranks@1";

/** The header line of {@link BPE_RANKS_FILE}. */
export const BpeRanksHeaderSchema = z.object({
  format: z.literal(BPE_RANKS_FORMAT),
  /** SHA-256 (lowercase hex) of the `tokenizer.json` bytes the file was made from. */
  tokenizer_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** `tokenizer.json` with `model.vocab` = `{}` and `model.merges` = `[]`. */
  outline: z.object({ model: z.object({ type: z.literal("BPE") }).loose() }).loose(),
});

/** The merge map the library's BPE reads: `JSON.stringify([left, right])` → rank (its `bpe_ranks.get`). */
export interface RankLookup {
  get(key: string): number | undefined;
  /** Distinct merges. */
  readonly size: number;
}

/** A read {@link BPE_RANKS_FILE}: the outline the library builds from and the merge map its BPE keys by. */
export interface BpeRanks {
  outline: Record<string, unknown>;
  ranks: RankLookup;
}

/** FNV-1a over the UTF-16 code units of `text` from `start` to `end`. */
function hashOf(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The merge lines of the file as a hash table over the file's own text (open addressing, linear probing):
 * the keys stay where they are in the text, so loading makes no string and no map entry per merge (building a
 * `Map` of the 151k merges took most of the load). `get` answers as a `Map` of the same lines in order would
 * (a repeated line keeps its last rank, as the library's own map does).
 */
export class RankTable implements RankLookup {
  readonly #text: string;
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;
  readonly #ranks: Int32Array;
  readonly #hashes: Uint32Array;
  /** Slot → entry + 1 (0: empty). */
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** Distinct merges. */
  readonly size: number;

  /** The table of the lines of `text` from `from` on (one key per line, each ending with a line feed). */
  constructor(text: string, from: number) {
    let lines = 0;
    for (let at = text.indexOf("\n", from); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
    this.#text = text;
    this.#starts = new Int32Array(lines);
    this.#ends = new Int32Array(lines);
    this.#ranks = new Int32Array(lines);
    this.#hashes = new Uint32Array(lines);
    let capacity = 1;
    while (capacity < lines * 2) capacity *= 2;
    this.#slots = new Int32Array(capacity);
    this.#mask = capacity - 1;
    let distinct = 0;
    let start = from;
    for (let rank = 0; rank < lines; rank++) {
      const end = text.indexOf("\n", start);
      const hash = hashOf(text, start, end);
      let slot = hash & this.#mask;
      for (;;) {
        const held = this.#slots[slot];
        if (held === 0) {
          this.#starts[distinct] = start;
          this.#ends[distinct] = end;
          this.#ranks[distinct] = rank;
          this.#hashes[distinct] = hash;
          this.#slots[slot] = ++distinct;
          break;
        }
        if (this.#hashes[held - 1] === hash && this.#equals(held - 1, text.slice(start, end))) {
          this.#ranks[held - 1] = rank; // a repeated merge: the last rank, as Map.set
          break;
        }
        slot = (slot + 1) & this.#mask;
      }
      start = end + 1;
    }
    this.size = distinct;
  }

  #equals(entry: number, key: string): boolean {
    const start = this.#starts[entry];
    return this.#ends[entry] - start === key.length && this.#text.startsWith(key, start);
  }

  /** The rank of merge `key` (`JSON.stringify([left, right])`), or undefined. */
  get(key: string): number | undefined {
    const hash = hashOf(key, 0, key.length);
    let slot = hash & this.#mask;
    for (;;) {
      const held = this.#slots[slot];
      if (held === 0) return undefined;
      if (this.#hashes[held - 1] === hash && this.#equals(held - 1, key)) return this.#ranks[held - 1];
      slot = (slot + 1) & this.#mask;
    }
  }
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

/** The model fields of `tokenizer.json` the BPE ranks file needs. */
const ModelSchema = z.object({
  type: z.literal("BPE"),
  vocab: z.record(z.string(), z.number()),
  merges: z.array(z.union([z.string(), z.tuple([z.string(), z.string()])])),
  dropout: z.null().optional(),
  unk_token: z.null().optional(),
  byte_fallback: z.literal(false).optional(),
  ignore_merges: z.literal(false).optional(),
  end_of_word_suffix: z.union([z.literal(""), z.null()]).optional(),
  continuing_subword_suffix: z.union([z.literal(""), z.null()]).optional(),
}).loose();

/**
 * The text of {@link BPE_RANKS_FILE} for a parsed `tokenizer.json` whose bytes hash to `sha256`, or a reason
 * why counting from prebuilt ranks would not be exact for it (then no file is made).
 */
export function bpeRanksText(tokenizerJson: unknown, sha256: string): { text: string } | { refused: string } {
  const json = tokenizerJson as { model?: unknown; pre_tokenizer?: unknown };
  const model = ModelSchema.safeParse(json.model);
  if (!model.success) {
    return { refused: `model: ${model.error.issues[0]?.path.join(".")}: ${model.error.issues[0]?.message}` };
  }
  const pre = json.pre_tokenizer as { type?: string; pretokenizers?: { type?: string }[] } | null | undefined;
  const steps = pre?.type === "Sequence" ? pre.pretokenizers ?? [] : [];
  if (steps.at(-1)?.type !== "ByteLevel") return { refused: "the pre-tokenizer does not end with ByteLevel" };
  const vocab = model.data.vocab;
  const missing = byteLevelSymbols().find((symbol) => !Object.hasOwn(vocab, symbol));
  if (missing !== undefined) {
    return { refused: `byte-level symbol ${JSON.stringify(missing)} is not in the vocabulary` };
  }
  const lines: string[] = [];
  for (const [rank, merge] of model.data.merges.entries()) {
    // As the library reads merges: "a b" is split at its first space.
    const [left, right] = typeof merge === "string" ? merge.split(" ", 2) : merge;
    if (right === undefined) return { refused: `merge ${rank} has no right part` };
    if (!Object.hasOwn(vocab, left + right)) {
      return { refused: `merge ${rank}'s result is not in the vocabulary` };
    }
    lines.push(JSON.stringify([left, right]));
  }
  const outline = { ...json, model: { ...model.data, vocab: {}, merges: [] } };
  const header = { format: BPE_RANKS_FORMAT, tokenizer_sha256: sha256, outline };
  return { text: `${JSON.stringify(header)}\n${lines.join("\n")}\n` };
}

/**
 * The prebuilt ranks in `dir` when its {@link BPE_RANKS_FILE} exists and was made from the `tokenizer.json`
 * whose SHA-256 is `tokenizerSha256`; else null (absent, another tokenizer's, or not in this format).
 */
export async function readBpeRanks(dir: string, tokenizerSha256: string): Promise<BpeRanks | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/${BPE_RANKS_FILE}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const headerEnd = text.indexOf("\n");
  let header: z.infer<typeof BpeRanksHeaderSchema>;
  try {
    const parsed = BpeRanksHeaderSchema.safeParse(JSON.parse(text.slice(0, headerEnd)));
    if (!parsed.success) return null;
    header = parsed.data;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  if (header.tokenizer_sha256 !== tokenizerSha256 || !text.endsWith("\n")) return null;
  return { outline: header.outline, ranks: new RankTable(text, headerEnd + 1) };
}
