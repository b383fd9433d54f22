/**
 * `compaction-bench tokens [--tokenizer PATH] [--json] FILE`: the exact token count of a messages file.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { ChatMessageSchema, ToolCallSchema, ToolDefinitionSchema } from "../models/messages.ts";
import { toolCallKey } from "../tokens/template.ts";
import type { ChatMessage, ToolDefinition } from "../models/messages.ts";
import { formatIssues } from "../tokens/config.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import type { HfTokenCounter } from "../tokens/counter.ts";
import { parseOptions, printHelp } from "./args.ts";
import { readInputJson } from "../fs_input.ts";
import { CLI } from "../core/program_name.ts";

export const TOKENS_HELP = `Usage: ${CLI} tokens [--tokenizer PATH] [--json] FILE

Counts the tokens of the chat messages in FILE exactly as the model sees them: rendered by the
tokenizer's chat template (generation prompt added, thinking disabled), then encoded by its tokenizer.

FILE is a JSON list of OpenAI-format messages, or an object {"messages": [...], "tools": [...]}
(other fields, such as a chat request's "model", are ignored). A tool call's "arguments" may be a JSON
string (OpenAI) or an object (the Hugging Face convention); an object is rendered as transformers'
chat templates render it, a string exactly as given.

Options:
  --tokenizer PATH Hugging Face tokenizer directory (tokenizer.json + tokenizer_config.json) or its tokenizer.json;
                   default: the shipped Qwen3 tokenizer
  --json           print {tokenizer, hash, total, messages: [{index, role, tokens}], generation_prompt}:
                   message i's tokens are count(messages 0..i) - count(messages 0..i-1), both rendered
                   without the generation prompt (message 0 includes the template's preamble);
                   generation_prompt is what the generation prompt adds; the parts sum to total
  -h, --help       show this help

Exit codes: 0 counted, 2 bad usage or input (the message names the file and field).
`;

/** A message as a messages file may hold it: a tool call's `arguments` may also be a JSON object. */
export const FileMessageSchema = ChatMessageSchema.extend({
  tool_calls: z.array(ToolCallSchema.extend({
    function: z.object({
      name: z.string().min(1),
      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
    }),
  })).optional(),
});

const ObjectFileSchema = z.object({
  messages: z.array(FileMessageSchema),
  tools: z.array(ToolDefinitionSchema).optional(),
});

/** The file's messages (object arguments as JSON text) and the keys of the calls whose arguments were objects. */
export function normalizeToolArguments(messages: z.infer<typeof FileMessageSchema>[]): {
  messages: ChatMessage[];
  objectArgumentCalls: Set<string>;
} {
  const objectArgumentCalls = new Set<string>();
  const out = messages.map((message, i) => {
    if (message.tool_calls === undefined) return message as ChatMessage;
    return {
      ...message,
      tool_calls: message.tool_calls.map((call, j) => {
        const args = call.function.arguments;
        if (typeof args === "string") return { ...call, function: { ...call.function, arguments: args } };
        objectArgumentCalls.add(toolCallKey(i, j));
        return { ...call, function: { ...call.function, arguments: JSON.stringify(args) } };
      }),
    };
  });
  return { messages: out, objectArgumentCalls };
}

/** A messages file's content after validation. */
export interface MessagesFile {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Keys (`toolCallKey`) of the tool calls whose arguments were JSON objects. */
  objectArgumentCalls?: Set<string>;
}

/** Reads a messages file (a list of messages or `{messages, tools?}`); a {@link UsageError} names the field. */
export async function readMessagesFile(path: string): Promise<MessagesFile> {
  const raw = await readInputJson(path);
  // Validate against the shape the file claims so the error names the field, not the union.
  if (Array.isArray(raw)) {
    const result = z.array(FileMessageSchema).safeParse(raw);
    if (!result.success) throw new UsageError(`${path}: ${formatIssues(result.error.issues, "messages")}`);
    return normalizeToolArguments(result.data);
  }
  if (typeof raw === "object" && raw !== null) {
    const result = ObjectFileSchema.safeParse(raw);
    if (!result.success) throw new UsageError(`${path}: ${formatIssues(result.error.issues)}`);
    return { ...normalizeToolArguments(result.data.messages), tools: result.data.tools };
  }
  throw new UsageError(
    `${path}: expected a list of messages or an object {messages, tools?}, got ${typeof raw}`,
  );
}

/** Runs `tokens`; returns the exit code; throws {@link UsageError} on bad input. */
export async function tokensCommand(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("tokens", argv, {
    json: z.boolean().optional(),
    tokenizer: z.string().min(1, "must name a directory").optional(),
  });
  if (options.help) return printHelp(TOKENS_HELP);
  if (positionals.length !== 1) {
    throw new UsageError(
      `tokens: expected exactly one FILE, got ${positionals.length} (see '${CLI} tokens --help')`,
    );
  }
  const file = await readMessagesFile(positionals[0]);
  if (file.messages.length === 0) throw new UsageError(`${positionals[0]}: messages: the list is empty`);
  const counter = await loadTokenCounter(options.tokenizer, {
    objectArgumentCalls: file.objectArgumentCalls,
  });
  let output: string;
  try {
    output = options.json
      ? breakdownJson(counter, file)
      : String(counter.countMessages(file.messages, file.tools));
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new UsageError(`${positionals[0]}: ${error.message}`, { cause: error });
  }
  console.log(output);
  return 0;
}

/**
 * The `--json` breakdown: message `i` gets `P(i+1) - P(i)` (`P(k)`: the first `k` messages rendered without
 * the generation prompt), the generation prompt `total - P(n)`; the parts add up to `total`.
 */
function breakdownJson(counter: HfTokenCounter, { messages, tools }: MessagesFile): string {
  const perMessage: { index: number; role: ChatMessage["role"]; tokens: number }[] = [];
  let previous = 0;
  for (let i = 0; i < messages.length; i++) {
    const prefix = counter.countMessagesWithoutGenerationPrompt(messages.slice(0, i + 1), tools);
    perMessage.push({ index: i, role: messages[i].role, tokens: prefix - previous });
    previous = prefix;
  }
  const total = counter.countMessages(messages, tools);
  return JSON.stringify({
    tokenizer: counter.name,
    hash: counter.hash,
    total,
    messages: perMessage,
    generation_prompt: total - previous,
  });
}
