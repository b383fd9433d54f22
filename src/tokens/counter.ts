/**
 * The exact token counter: chat template rendering ({@link ChatTemplate}) followed by the model's own
 * tokenizer (`@huggingface/tokenizers` over `tokenizer.json`), with counts cached by content hash.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Tokenizer } from "@huggingface/tokenizers";
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import type { TokenCounter } from "./types.ts";
import type { ChatTemplate, TemplateViewOptions } from "./template.ts";
import { promptKey } from "./prompt_key.ts";
import type { PreTokenCounter } from "./pre_token_count.ts";
import type { TextCountCache } from "./text_cache.ts";
import type { FifoMap } from "../core/fifo_map.ts";

/** At most this many counts of pieces are cached per tokenizer, in each of its two caches; past it the oldest are dropped. */
export const COUNT_CACHE_LIMIT = 50_000;

/** The pieces cached under their own text total at most this many UTF-16 units per tokenizer. */
export const COUNT_CACHE_CHARS = 2 * 1024 * 1024;

/** At most this many prompt counts are kept per tokenizer (see {@link promptKey}); the oldest are dropped. */
export const PROMPT_CACHE_LIMIT = 20_000;

/** A built tokenizer directory: what is expensive to make, shared by every counter over that directory. */
export interface LoadedTokenizer {
  /** Short name (the directory's base name, e.g. "qwen3"). */
  name: string;
  /** Tokenizer identity hash, see `tokenizerHash` in load.ts. */
  hash: string;
  /** The directory the files were read from. */
  dir: string;
  /**
   * The library's tokenizer built from tokenizer.json and tokenizer_config.json (for token ids): built at load,
   * or on first call where counts come from prebuilt ranks.
   */
  tokenizer: () => Tokenizer;
  /** True when pieces are counted from the directory's prebuilt BPE ranks (`bpe_ranks.ts`). */
  fromRanks: boolean;
  /** The compiled chat template. */
  template: ChatTemplate;
  /** Token counts of pieces up to {@link TEXT_KEY_LIMIT} UTF-16 units, keyed by the piece's text. */
  counts: TextCountCache;
  /** Token counts of longer pieces, keyed by the SHA-256 (hex) of the piece's UTF-8 bytes. */
  hashedCounts: FifoMap<string, number>;
  /** Counts of rendered prompts keyed by {@link promptKey}. */
  promptCounts: FifoMap<string, number>;
  /** Matches added tokens where splitting at them is exact (see `addedTokenSplitter`), else null. */
  splitter: RegExp | null;
  /**
   * Matches the line breaks after which a piece with no added token may be cut and counted in parts
   * exactly (see `lineBreakSplitter`), else null. Used only together with `splitter`.
   */
  lineCut: RegExp | null;
  /** True when no added token `splitter` matches holds a `\r` or `\n`. */
  splitterLineFree: boolean;
  /**
   * Counts a piece with no added token by its pre-tokens, each count cached, where that is exact (see
   * `pre_token_count.ts`), else null (pieces are encoded whole).
   */
  countByPreToken: PreTokenCounter | null;
}

/**
 * Pieces up to this many UTF-16 units are cached under their own text (bounded in total by
 * {@link COUNT_CACHE_CHARS}); longer ones under their SHA-256. A prompt's lines are pieces: keyed by their
 * text, a line seen before is found without hashing it with SHA-256 (most of the time counting took).
 */
export const TEXT_KEY_LIMIT = 8192;

/** Options of a counter; they change what the template sees, never the tokenizer. */
export type CounterOptions = TemplateViewOptions;

/** {@link TokenCounter} over a Hugging Face tokenizer directory. */
export class HfTokenCounter implements TokenCounter {
  readonly #loaded: LoadedTokenizer;
  readonly #options: CounterOptions;

  /** Wraps a loaded tokenizer; use `loadTokenCounter` rather than calling this directly. */
  constructor(loaded: LoadedTokenizer, options: CounterOptions = {}) {
    this.#loaded = loaded;
    this.#options = options;
  }

  /** Short name of the tokenizer (the directory's base name). */
  get name(): string {
    return this.#loaded.name;
  }

  /** Identity hash of the tokenizer files (see `tokenizerHash` in load.ts). */
  get hash(): string {
    return this.#loaded.hash;
  }

  /** The directory the tokenizer files were read from. */
  get dir(): string {
    return this.#loaded.dir;
  }

  /**
   * True when counts add up at a line break followed by a non-whitespace character (see
   * {@link TokenCounter.additiveAtLineBreaks}): both cuts are exact (`addedTokenSplitter`, `lineBreakSplitter`)
   * and no added token holds a line break, so none spans the join.
   */
  get additiveAtLineBreaks(): boolean {
    return this.#loaded.splitter !== null && this.#loaded.lineCut !== null && this.#loaded.splitterLineFree;
  }

  /** True when counts come from the directory's prebuilt BPE ranks (`bpe_ranks.bin`, see `bpe_ranks.ts`). */
  get fromPrebuiltRanks(): boolean {
    return this.#loaded.fromRanks;
  }

  /** How many counts are cached for this tokenizer (shared by every counter of its directory). */
  get cachedCounts(): number {
    return this.#loaded.counts.size + this.#loaded.hashedCounts.size;
  }

  /**
   * The prompt text exactly as the model sees it: the messages rendered by the chat template, with the
   * generation prompt unless `addGenerationPrompt` is false, and `enable_thinking: false`.
   */
  render(messages: ChatMessage[], tools?: ToolDefinition[], addGenerationPrompt = true): string {
    return this.#loaded.template.render(messages, tools, { ...this.#options, addGenerationPrompt });
  }

  /**
   * Token ids of `text`, special tokens written in the text recognised as such, none added
   * (`add_special_tokens: false`, as `apply_chat_template` tokenizes).
   */
  encode(text: string): number[] {
    return this.#loaded.tokenizer().encode(text, { add_special_tokens: false }).ids;
  }

  /**
   * Token count of the rendered messages with the generation prompt. A prompt counted before (the same
   * template view, tools and generation prompt: see `promptKey`) is not rendered again.
   */
  countMessages(messages: ChatMessage[], tools?: ToolDefinition[]): number {
    return this.#countPrompt(messages, tools, true);
  }

  /** Token count of the messages rendered without the generation prompt (for per-message breakdowns). */
  countMessagesWithoutGenerationPrompt(messages: ChatMessage[], tools?: ToolDefinition[]): number {
    return this.#countPrompt(messages, tools, false);
  }

  /** How many prompt counts are kept for this tokenizer (shared by every counter of its directory). */
  get cachedPrompts(): number {
    return this.#loaded.promptCounts.size;
  }

  #countPrompt(
    messages: ChatMessage[],
    tools: ToolDefinition[] | undefined,
    generationPrompt: boolean,
  ): number {
    const key = this.#loaded.template.pure
      ? promptKey(messages, tools, generationPrompt, this.#options)
      : null;
    const prompts = this.#loaded.promptCounts;
    if (key !== null) {
      const known = prompts.get(key);
      if (known !== undefined) return known;
    }
    const count = this.countText(this.render(messages, tools, generationPrompt));
    if (key !== null) {
      prompts.set(key, count);
    }
    return count;
  }

  /**
   * Token count of a plain text, no template and no special tokens added. Where exact (see
   * `addedTokenSplitter` and `lineBreakSplitter`), the text is cut at added tokens such as `<|im_start|>` and
   * after line breaks that a non-whitespace character follows, and each piece is counted and cached on its
   * own, so prompts that share messages or lines share most of their counting work.
   */
  countText(text: string): number {
    const splitter = this.#loaded.splitter;
    if (splitter === null) return this.#countPiece(text);
    let total = 0;
    let last = 0;
    // `exec` on the (global) splitter itself: `matchAll` would clone it and make an iterator per text.
    splitter.lastIndex = 0;
    for (let match = splitter.exec(text); match !== null; match = splitter.exec(text)) {
      if (match.index > last) total += this.#countLines(text.slice(last, match.index));
      total += 1;
      last = match.index + match[0].length;
    }
    if (last < text.length) total += this.#countLines(text.slice(last));
    return total;
  }

  /** Count of a piece with no added token inside, cut after line breaks where that is exact. */
  #countLines(text: string): number {
    const lineCut = this.#loaded.lineCut;
    if (lineCut === null) return this.#countPiece(text);
    let total = 0;
    let last = 0;
    // The cut matches the one line break it cuts after (`LINE_BREAK_CUT`, global), so where a match ends is
    // `lastIndex`, which `test` sets without making a match object.
    lineCut.lastIndex = 0;
    while (lineCut.test(text)) {
      const end = lineCut.lastIndex;
      total += this.#countPiece(text.slice(last, end));
      last = end;
    }
    if (last < text.length) total += this.#countPiece(text.slice(last));
    return total;
  }

  /** Count of a piece that is encoded whole; cached by the piece's text (up to TEXT_KEY_LIMIT) or its SHA-256. */
  #countPiece(text: string): number {
    if (text.length <= TEXT_KEY_LIMIT) {
      const counts = this.#loaded.counts;
      const cached = counts.get(text);
      if (cached !== undefined) return cached;
      const count = this.#encodePiece(text);
      counts.set(text, count);
      return count;
    }
    const key = createHash("sha256").update(text, "utf8").digest("hex");
    const hashed = this.#loaded.hashedCounts;
    const cached = hashed.get(key);
    if (cached !== undefined) return cached;
    const count = this.#encodePiece(text);
    hashed.set(key, count);
    return count;
  }

  /** Count of a piece, not cached here: by pre-token where that is exact, else its token ids. */
  #encodePiece(text: string): number {
    return this.#loaded.countByPreToken?.(text) ?? this.encode(text).length;
  }
}
