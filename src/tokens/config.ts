/**
 * The parts of a Hugging Face tokenizer directory the token counter reads, validated with zod.
 * @module
 */
import { z } from "zod";

/** A special token as `tokenizer_config.json` writes it: a string, or an `AddedToken` object with `content`. */
export const SpecialTokenSchema = z.union([
  z.string(),
  z.object({ content: z.string() }).loose(),
]).nullable().optional();

/** The names under which the chat template sees the special tokens (as `transformers` passes them). */
export const SPECIAL_TOKEN_FIELDS = (["bos", "eos", "unk", "pad", "sep", "cls", "mask"] as const)
  .map((name) => `${name}_token` as const);
const specialTokenShape = Object.fromEntries(
  SPECIAL_TOKEN_FIELDS.map((field) => [field, SpecialTokenSchema]),
);

const NamedTemplateSchema = z.object({ name: z.string(), template: z.string().min(1) });

/** The fields of `tokenizer_config.json` the counter uses; other fields are kept as they are. */
export const TokenizerConfigSchema = z.object({
  chat_template: z.union([z.string().min(1), z.array(NamedTemplateSchema).min(1)], {
    error: (issue) =>
      issue.input === undefined
        ? "no chat_template: token counting needs the model's chat template"
        : "chat_template must be a non-empty string or a list of {name, template}",
  }),
  ...specialTokenShape as Record<(typeof SPECIAL_TOKEN_FIELDS)[number], typeof SpecialTokenSchema>,
}).loose();
export type TokenizerConfig = z.infer<typeof TokenizerConfigSchema>;

/** The outline of `tokenizer.json` checked before the tokenizer library builds from it. */
export const TokenizerJsonSchema = z.object({
  model: z.object({ type: z.string().optional() }).loose(),
  added_tokens: z.array(
    z.object({
      id: z.number().int().nonnegative(),
      content: z.string(),
      special: z.boolean().optional(),
      lstrip: z.boolean().optional(),
      rstrip: z.boolean().optional(),
      single_word: z.boolean().optional(),
      normalized: z.boolean().optional(),
    }).loose(),
  ),
  normalizer: z.unknown().optional(),
}).loose();

/** A pattern matching the added tokens when splitting a text at them is exact, else null. */
export function addedTokenSplitter(json: z.infer<typeof TokenizerJsonSchema>): RegExp | null {
  const tokens = json.added_tokens;
  if (tokens.length === 0) return null;
  const normalizer = json.normalizer as { type?: string; normalizers?: unknown[] } | null | undefined;
  const noNormalizer = normalizer === null || normalizer === undefined ||
    (normalizer.type === "Sequence" && (normalizer.normalizers ?? []).length === 0);
  for (const t of tokens) {
    if (t.lstrip || t.rstrip || t.single_word) return null;
    if (t.normalized && !noNormalizer) return null;
    if (t.content.length === 0) return null;
  }
  const escaped = [...new Set(tokens.map((t) => t.content))]
    .sort((a, b) => b.length - a.length)
    .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(escaped.join("|"), "g");
}

/** Pre-tokenizer regexes under which a line break before non-whitespace is a hard boundary (checked by hand). */
const LINE_SAFE_SPLIT_PATTERNS: ReadonlySet<string> = new Set([
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  "\\p{N}{1,3}",
  "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
  "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
]);

/** Where {@link lineBreakSplitter} cuts: just after a `\r` or `\n` that a non-whitespace character follows. */
export const LINE_BREAK_CUT = /[\r\n](?=\P{White_Space})/gu;

/**
 * {@link LINE_BREAK_CUT} when counting a text's pieces cut after line breaks gives the whole text's count (an
 * NFC or no normalizer, `Split`s over {@link LINE_SAFE_SPLIT_PATTERNS}, a plain `ByteLevel`), else null.
 */
export function lineBreakSplitter(json: z.infer<typeof TokenizerJsonSchema>): RegExp | null {
  const normalizer = json.normalizer as { type?: string; normalizers?: unknown[] } | null | undefined;
  const normalizerSafe = normalizer === null || normalizer === undefined || normalizer.type === "NFC" ||
    (normalizer.type === "Sequence" && (normalizer.normalizers ?? []).length === 0);
  if (!normalizerSafe) return null;
  const pre = (json as { pre_tokenizer?: unknown }).pre_tokenizer as
    | { type?: string; pretokenizers?: unknown[] }
    | null
    | undefined;
  if (pre?.type !== "Sequence" || !Array.isArray(pre.pretokenizers) || pre.pretokenizers.length < 2) {
    return null;
  }
  const steps = pre.pretokenizers as Record<string, unknown>[];
  const last = steps[steps.length - 1];
  if (last.type !== "ByteLevel" || last.add_prefix_space !== false || last.use_regex !== false) return null;
  for (const step of steps.slice(0, -1)) {
    const pattern = step.pattern as { Regex?: unknown } | undefined;
    if (
      step.type !== "Split" || step.behavior !== "Isolated" || step.invert !== false ||
      typeof pattern?.Regex !== "string" || !LINE_SAFE_SPLIT_PATTERNS.has(pattern.Regex)
    ) {
      return null;
    }
  }
  return LINE_BREAK_CUT;
}

/** The chat template to render: the string itself, or the entry named "default" (else the first) of a list. */
export function selectChatTemplate(config: TokenizerConfig): string {
  const template = config.chat_template;
  if (typeof template === "string") return template;
  return (template.find((entry) => entry.name === "default") ?? template[0]).template;
}

/** The special tokens as plain strings (`AddedToken` objects reduced to their `content`), absent ones left out. */
export function specialTokenStrings(config: TokenizerConfig): Record<string, string> {
  const tokens: Record<string, string> = {};
  for (const field of SPECIAL_TOKEN_FIELDS) {
    const value = config[field];
    if (typeof value === "string") tokens[field] = value;
    else if (value != null) tokens[field] = value.content;
  }
  return tokens;
}

/** Formats zod issues as `field.path: message; ...`, using `[i]` for list indices. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], prefix = ""): string {
  return issues.map((issue) => `${formatPath(prefix, issue.path)}: ${issue.message}`).join("; ");
}

/** A zod issue path after `prefix` as `context[2].sentences[1]`; `empty` when both are empty. */
export function formatPath(prefix: string, path: readonly PropertyKey[], empty = "(top level)"): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? empty : out;
}
