/**
 * Builds a `TokenCounter` from a Hugging Face tokenizer directory, once per directory per process (with prebuilt
 * ranks, `tokenizer.json` is only hashed until token ids are asked for).
 * @module
 */
import { createHash } from "node:crypto";
import { sha256Hex } from "../store/hash.ts";
import { basename, dirname, resolve } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import { DEFAULT_TOKENIZER_DIR } from "../assets.ts";
import { type PreTokenCounter, preTokenCounter } from "./pre_token_count.ts";
import { UsageError } from "../errors.ts";
import {
  addedTokenSplitter,
  formatIssues,
  lineBreakSplitter,
  selectChatTemplate,
  specialTokenStrings,
  TokenizerConfigSchema,
  TokenizerJsonSchema,
} from "./config.ts";
import {
  COUNT_CACHE_CHARS,
  COUNT_CACHE_LIMIT,
  type CounterOptions,
  HfTokenCounter,
  type LoadedTokenizer,
  PROMPT_CACHE_LIMIT,
} from "./counter.ts";
import { TextCountCache } from "./text_cache.ts";
import { FifoMap } from "../core/fifo_map.ts";
import { ChatTemplate, TemplateLimitError } from "./template.ts";
import { inputError, readInputChunks, readInputFile, statInputDirectory } from "../fs_input.ts";
import type { ChatMessage } from "../core/messages.ts";
import { bpePartCounter, readBpeRanks } from "./bpe_ranks.ts";
import { parseJson as parseBoundedJson } from "../core/json_read.ts";

/** The two files a tokenizer directory must hold, in the order they enter {@link tokenizerHash}. */
export const TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json"] as const;

/** The identity hash of a tokenizer directory: `sha256sum tokenizer.json tokenizer_config.json | sha256sum`. */
export function tokenizerHash(tokenizerJson: Uint8Array, tokenizerConfig: Uint8Array): string {
  return listingHash(sha256Hex(tokenizerJson), sha256Hex(tokenizerConfig));
}

function listingHash(jsonSha: string, configSha: string): string {
  const listing = `${jsonSha}  ${TOKENIZER_FILES[0]}\n${configSha}  ${TOKENIZER_FILES[1]}\n`;
  return sha256Hex(listing);
}

const loaded = new Map<string, Promise<LoadedTokenizer>>();

/** The token counter of the tokenizer in `dir` (default Qwen3), loaded once per process; bad files: UsageError. */
export async function loadTokenCounter(
  dir: string = DEFAULT_TOKENIZER_DIR,
  options: CounterOptions = {},
): Promise<HfTokenCounter> {
  const key = resolve(await tokenizerDirectory(dir));
  let promise = loaded.get(key);
  if (promise === undefined) {
    promise = buildTokenizer(key);
    loaded.set(key, promise);
    promise.catch(() => loaded.delete(key));
  }
  return await promise.then((tokenizer) => new HfTokenCounter(tokenizer, options));
}

/** The tokenizer directory `--tokenizer PATH` names: PATH, or a `tokenizer.json` file's folder (else refused). */
export async function tokenizerDirectory(path: string): Promise<string> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    throw inputError(error, path, "--tokenizer");
  }
  if (!info.isFile) return path;
  if (basename(path) !== TOKENIZER_FILES[0]) {
    throw new UsageError(
      `--tokenizer ${path}: a file must be a ${TOKENIZER_FILES[0]} (with ${TOKENIZER_FILES[1]} beside it); ` +
        `or give the directory holding both`,
    );
  }
  return dirname(path);
}

/** Refuses a tokenizer file that is not there, naming the two files a tokenizer directory needs. */
async function assertPresent(path: string): Promise<void> {
  try {
    await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(
        `${path}: not found (a tokenizer directory needs ${TOKENIZER_FILES.join(" and ")})`,
      );
    }
    throw inputError(error, path, "--tokenizer");
  }
}

async function readFile(path: string): Promise<Uint8Array> {
  return await assertPresent(path).then(() => readInputFile(path, "--tokenizer"));
}

/** SHA-256 of a tokenizer file, streamed (the file is never held whole). */
async function hashFile(path: string): Promise<string> {
  await assertPresent(path);
  const hash = createHash("sha256");
  await readInputChunks(path, "--tokenizer", (bytes) => hash.update(bytes));
  return hash.digest("hex");
}

/** `tokenizer.json` read again (synchronously) for the library's tokenizer, refused unless its hash still holds. */
function readAgain(path: string, sha: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    throw inputError(error, path, "--tokenizer");
  }
  if (sha256Hex(bytes) !== sha) {
    throw new UsageError(`--tokenizer ${path}: changed since the tokenizer was loaded (its SHA-256 differs)`);
  }
  return bytes;
}

/** Renders a small conversation once at load, so a template that loops whatever it is given is refused early. */
function probeTemplate(template: ChatTemplate): void {
  const probe = (["system", "user", "assistant", "user"] as const).map((role): ChatMessage => ({
    role,
    content: "probe",
  }));
  try {
    template.render(probe);
  } catch (error) {
    if (error instanceof TemplateLimitError || !(error instanceof Error)) throw error;
  }
}

function parseJson(path: string, bytes: Uint8Array): unknown {
  try {
    return parseBoundedJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) {
      throw new UsageError(`${path}: not valid UTF-8 JSON: ${error.message}`);
    }
    throw error;
  }
}

/** The library's tokenizer built from a parsed `tokenizer.json` (a build failure names the file). */
function libraryTokenizer(jsonPath: string, tokenizerRaw: unknown, configRaw: unknown): Tokenizer {
  try {
    return new Tokenizer(tokenizerRaw as object, configRaw as object);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new UsageError(`${jsonPath}: the tokenizer cannot be built: ${error.message}`, { cause: error });
  }
}

async function buildTokenizer(dir: string): Promise<LoadedTokenizer> {
  await statInputDirectory(dir, "--tokenizer");
  const jsonPath = `${dir}/${TOKENIZER_FILES[0]}`;
  const configPath = `${dir}/${TOKENIZER_FILES[1]}`;
  const [hashed, configBytes] = await Promise.all([hashFile(jsonPath), readFile(configPath)]);
  const configRaw = parseJson(configPath, configBytes);
  const config = TokenizerConfigSchema.safeParse(configRaw);
  if (!config.success) throw new UsageError(`${configPath}: ${formatIssues(config.error.issues)}`);
  const prebuilt = await readBpeRanks(dir, hashed);
  let jsonSha = hashed;
  let jsonBytes: Uint8Array | undefined;
  let tokenizerRaw: unknown;
  if (prebuilt === null) {
    // Parsed now, and hashed as read (it may have changed since).
    jsonBytes = await readFile(jsonPath);
    jsonSha = sha256Hex(jsonBytes);
    tokenizerRaw = parseJson(jsonPath, jsonBytes);
  } else {
    tokenizerRaw = prebuilt.outline;
  }
  let full: Tokenizer | undefined;
  const fullTokenizer = () =>
    full ??= libraryTokenizer(
      jsonPath,
      parseJson(jsonPath, jsonBytes ?? readAgain(jsonPath, jsonSha)),
      configRaw,
    );
  const outline = TokenizerJsonSchema.safeParse(tokenizerRaw);
  if (!outline.success) throw new UsageError(`${jsonPath}: ${formatIssues(outline.error.issues)}`);
  let template: ChatTemplate;
  try {
    template = new ChatTemplate(
      selectChatTemplate(config.data),
      specialTokenStrings(config.data),
      configPath,
    );
  } catch (error) {
    if (error instanceof SyntaxError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  probeTemplate(template);
  const splitter = addedTokenSplitter(outline.data);
  const lineCut = lineBreakSplitter(outline.data);
  // Only pieces cut at added tokens reach it, so it needs the added-token splitter too.
  let countByPreToken: PreTokenCounter | null = null;
  let fromRanks = false;
  if (splitter !== null && prebuilt !== null) {
    const stub = libraryTokenizer(jsonPath, tokenizerRaw, configRaw);
    const parts = bpePartCounter(prebuilt.merges, prebuilt.byteIds);
    countByPreToken = preTokenCounter(stub, lineCut !== null, outline.data.model, parts);
    fromRanks = countByPreToken !== null;
  }
  if (!fromRanks) {
    // Built whole, now: a tokenizer.json the library cannot build from is refused at load.
    const tokenizer = fullTokenizer();
    if (splitter !== null) countByPreToken = preTokenCounter(tokenizer, lineCut !== null, outline.data.model);
  }
  return {
    name: basename(dir),
    hash: listingHash(jsonSha, sha256Hex(configBytes)),
    dir,
    tokenizer: fullTokenizer,
    fromRanks,
    template,
    counts: new TextCountCache(COUNT_CACHE_LIMIT, COUNT_CACHE_CHARS),
    hashedCounts: new FifoMap(COUNT_CACHE_LIMIT),
    promptCounts: new FifoMap(PROMPT_CACHE_LIMIT),
    splitter,
    lineCut,
    splitterLineFree: outline.data.added_tokens.every((t) => !/[\r\n]/.test(t.content)),
    countByPreToken,
  };
}
