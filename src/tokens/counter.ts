/**
 * The exact token counter: the chat template, then the model's own tokenizer, counts cached by content (a
 * prompt's under a SHA-256 of everything its render depends on, or none where a text cannot tell renders apart).
 * @module
 */
import { sha256Hex } from "../store/hash.ts";
import type { Tokenizer } from "@huggingface/tokenizers";
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import type { TokenCounter } from "./types.ts";
import { type ChatTemplate, templateView, type TemplateViewOptions } from "./template.ts";
import type { PreTokenCounter } from "./pre_token_count.ts";
import type { TextCountCache } from "./text_cache.ts";
import type { FifoMap } from "../core/fifo_map.ts";

/** At most this many piece counts are cached per tokenizer in each of its two caches (oldest dropped). */
export const COUNT_CACHE_LIMIT = 50_000;

/** The pieces cached under their own text total at most this many UTF-16 units per tokenizer. */
export const COUNT_CACHE_CHARS = 2 * 1024 * 1024;

/** At most this many prompt counts are kept per tokenizer (see {@link promptKey}); the oldest are dropped. */
export const PROMPT_CACHE_LIMIT = 20_000;

/** A built tokenizer directory: what is expensive to make, shared by its counters. */
export interface LoadedTokenizer {
  name: string;
  hash: string;
  dir: string;
  /** The library's tokenizer (for token ids): built at load, or on first call with prebuilt ranks. */
  tokenizer: () => Tokenizer;
  /** True when pieces are counted from the directory's prebuilt BPE ranks (`bpe_ranks.ts`). */
  fromRanks: boolean;
  template: ChatTemplate;
  counts: TextCountCache;
  hashedCounts: FifoMap<string, number>;
  promptCounts: FifoMap<string, number>;
  /** Matches added tokens where splitting at them is exact, else null. */
  splitter: RegExp | null;
  /** Matches the line breaks after which a piece may be cut and counted in parts exactly, else null. */
  lineCut: RegExp | null;
  /** True when no added token `splitter` matches holds a `\r` or `\n`. */
  splitterLineFree: boolean;
  /** Counts a piece with no added token by its cached pre-tokens where exact, else null. */
  countByPreToken: PreTokenCounter | null;
}

/** Pieces up to this many UTF-16 units are cached under their text (no SHA-256), longer ones under their hash. */
export const TEXT_KEY_LIMIT = 8192;

/** Options of a counter; they change what the template sees, never the tokenizer. */
export type CounterOptions = TemplateViewOptions;

/** {@link TokenCounter} over a Hugging Face tokenizer directory. */
export class HfTokenCounter implements TokenCounter {
  readonly #loaded: LoadedTokenizer;
  readonly #options: CounterOptions;

  constructor(loaded: LoadedTokenizer, options: CounterOptions = {}) {
    this.#loaded = loaded;
    this.#options = options;
  }

  get name(): string {
    return this.#loaded.name;
  }

  get hash(): string {
    return this.#loaded.hash;
  }

  get dir(): string {
    return this.#loaded.dir;
  }

  /** Whether counts add up at a line break before non-whitespace: both cuts exact, no added token holds one. */
  get additiveAtLineBreaks(): boolean {
    return this.#loaded.splitter !== null && this.#loaded.lineCut !== null && this.#loaded.splitterLineFree;
  }

  get fromPrebuiltRanks(): boolean {
    return this.#loaded.fromRanks;
  }

  get cachedCounts(): number {
    return this.#loaded.counts.size + this.#loaded.hashedCounts.size;
  }

  /** The prompt text exactly as the model sees it (`enable_thinking: false`). */
  render(messages: ChatMessage[], tools?: ToolDefinition[], addGenerationPrompt = true): string {
    return this.#loaded.template.render(messages, tools, { ...this.#options, addGenerationPrompt });
  }

  /** Token ids of `text`, special tokens in the text recognised, none added (as `apply_chat_template`). */
  encode(text: string): number[] {
    return this.#loaded.tokenizer().encode(text, { add_special_tokens: false }).ids;
  }

  /** Token count of the messages with the generation prompt; a prompt counted before is not rendered again. */
  countMessages(messages: ChatMessage[], tools?: ToolDefinition[]): number {
    return this.#countPrompt(messages, tools, true);
  }

  /** Token count of the messages rendered without the generation prompt (for per-message breakdowns). */
  countMessagesWithoutGenerationPrompt(messages: ChatMessage[], tools?: ToolDefinition[]): number {
    return this.#countPrompt(messages, tools, false);
  }

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
    if (key !== null) prompts.set(key, count);
    return count;
  }

  /** Token count of a plain text (no template); cut at added tokens and line breaks where exact, pieces cached. */
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
    // Where the one-line-break match ends is `lastIndex`, which `test` sets without a match object.
    lineCut.lastIndex = 0;
    while (lineCut.test(text)) {
      const end = lineCut.lastIndex;
      total += this.#countPiece(text.slice(last, end));
      last = end;
    }
    if (last < text.length) total += this.#countPiece(text.slice(last));
    return total;
  }

  /** Count of a piece encoded whole, cached by its text (up to TEXT_KEY_LIMIT) or its SHA-256. */
  #countPiece(text: string): number {
    const short = text.length <= TEXT_KEY_LIMIT;
    const key = short ? text : sha256Hex(text);
    const cache: Pick<TextCountCache, "get" | "set"> = short
      ? this.#loaded.counts
      : this.#loaded.hashedCounts;
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    const count = this.#encodePiece(text);
    cache.set(key, count);
    return count;
  }

  /** Count of a piece, not cached here: by pre-token where that is exact, else its token ids. */
  #encodePiece(text: string): number {
    return this.#loaded.countByPreToken?.(text) ?? this.encode(text).length;
  }
}

/** True when `JSON.stringify` writes `value` without loss, so equal texts mean equal values to a template. */
export function jsonFaithful(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !jsonFaithful(value[i])) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  for (const key of Object.keys(value)) {
    if (!jsonFaithful((value as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** A field of the plain text: its length, a colon and its text. */
function field(text: string): string {
  return `${text.length}:${text}`;
}

/** A field that may be absent (`-`); null where the value is neither absent nor a string. */
function optionalField(value: unknown): string | null {
  if (value === undefined) return "-";
  return typeof value === "string" ? field(value) : null;
}

/** The plain text of the view of `messages` (`templateView`'s fields), or null where a field is not a string. */
export function plainPromptText(messages: readonly ChatMessage[], generationPrompt: boolean): string | null {
  let text = `P${generationPrompt ? "g" : "n"}${messages.length}|`;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message === null || typeof message !== "object") return null;
    const { role, content, tool_calls: calls } = message;
    if (typeof role !== "string") return null;
    text += field(role);
    if (content === null || content === undefined) text += "0:";
    else if (typeof content === "string") text += field(content);
    else return null;
    if (calls === undefined) text += "-";
    else {
      if (!Array.isArray(calls)) return null;
      text += `${calls.length}[`;
      for (let j = 0; j < calls.length; j++) {
        const call = calls[j];
        if (call === null || typeof call !== "object") return null;
        const fn = call.function;
        if (
          typeof call.id !== "string" || typeof call.type !== "string" || fn === null ||
          typeof fn !== "object" ||
          typeof fn.name !== "string" || typeof fn.arguments !== "string"
        ) {
          return null;
        }
        text += field(call.id) + field(call.type) + field(fn.name) + field(fn.arguments);
      }
    }
    const callId = optionalField(message.tool_call_id);
    const name = optionalField(message.name);
    if (callId === null || name === null) return null;
    text += callId + name;
  }
  return text;
}

/** The prompt's cache key (SHA-256, hex), or null where no text tells its render apart. */
export function promptKey(
  messages: ChatMessage[],
  tools: ToolDefinition[] | undefined,
  generationPrompt: boolean,
  options: TemplateViewOptions,
): string | null {
  const plain = tools === undefined && !options.parseToolArguments && !options.objectArgumentCalls?.size
    ? plainPromptText(messages, generationPrompt)
    : null;
  if (plain !== null) return sha256Hex(plain);
  const view = templateView(messages, options);
  if (!jsonFaithful(view) || (tools !== undefined && !jsonFaithful(tools))) return null;
  return sha256Hex(JSON.stringify([generationPrompt, view, tools ?? null]));
}
