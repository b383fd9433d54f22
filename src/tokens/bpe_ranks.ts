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

/** A read {@link BPE_RANKS_FILE}: the outline the library builds from and the merge map its BPE keys by. */
export interface BpeRanks {
  outline: Record<string, unknown>;
  /** `JSON.stringify([left, right])` → rank. */
  ranks: Map<string, number>;
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
  const ranks = new Map<string, number>();
  let rank = 0;
  for (let start = headerEnd + 1; start < text.length;) {
    const end = text.indexOf("\n", start);
    ranks.set(text.slice(start, end), rank++);
    start = end + 1;
  }
  return { outline: header.outline, ranks };
}
