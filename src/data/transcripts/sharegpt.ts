/**
 * Importer for Hermes ShareGPT trajectories: `<tool_call>`s become tool calls with stable ids, `<tool_response>`s
 * their `tool` results, `<think>` is removed.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage, ToolCall } from "../../models/messages.ts";
import {
  type ImportedTranscript,
  type ImportOptions,
  issueError,
  parseJsonText,
  pythonJsonText,
} from "./types.ts";
import { parseJson } from "../../core/json_read.ts";
import { sha256Hex } from "../../store/hash.ts";

/** One trajectory record (extra fields such as `tools`, `model`, `completed` are kept as meta). */
export const ShareGptRecordSchema = z.object({
  conversations: z.array(z.object({
    from: z.enum(["system", "human", "gpt", "tool"]),
    value: z.string(),
  })).min(1),
}).catchall(z.unknown());

const ToolCallBodySchema = z.object({
  name: z.string().min(1),
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default({}),
});

const THINK = /<think>[\s\S]*?<\/think>/g;
/** A `<think>` never closed (a truncated trajectory): everything after it is thinking. */
const UNCLOSED_THINK = /<think>[\s\S]*$/;
const TOOL_CALL = /<tool_call>([\s\S]*?)<\/tool_call>/g;
const TOOL_RESPONSE = /<tool_response>([\s\S]*?)<\/tool_response>/g;

function responseContent(body: string): string {
  const trimmed = body.trim();
  try {
    const json = parseJson(trimmed);
    if (json !== null && typeof json === "object" && !Array.isArray(json) && "content" in json) {
      const content = (json as { content: unknown }).content;
      return typeof content === "string" ? content : JSON.stringify(content);
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return trimmed;
}

/** Converts one validated record into messages; `where` names the line for errors. */
function convert(record: z.infer<typeof ShareGptRecordSchema>, path: string, line: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let pending: ToolCall[] = [];
  const where = (turn: number) => `${path}: line ${line}, conversations[${turn}]`;
  record.conversations.forEach((turn, index) => {
    if (turn.from !== "tool" && pending.length > 0) {
      throw new UsageError(`${where(index)}: tool call '${pending[0].function.name}' has no <tool_response>`);
    }
    if (turn.from === "system") messages.push({ role: "system", content: turn.value });
    else if (turn.from === "human") messages.push({ role: "user", content: turn.value });
    else if (turn.from === "gpt") {
      const text = turn.value.replace(THINK, "").replace(UNCLOSED_THINK, "");
      const calls: ToolCall[] = [];
      for (const match of text.matchAll(TOOL_CALL)) {
        let json: unknown;
        try {
          json = parseJson(match[1].trim());
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw new UsageError(`${where(index)}: <tool_call> is not JSON: ${error.message}`);
        }
        const body = ToolCallBodySchema.safeParse(json);
        if (!body.success) {
          throw issueError(path, `line ${line}: conversations[${index}] <tool_call> `, body.error);
        }
        const args = body.data.arguments;
        calls.push({
          id: `call_${sha256Hex(`sharegpt|${line}|${index}|${calls.length}`).slice(0, 16)}`,
          type: "function",
          function: {
            name: body.data.name,
            arguments: typeof args === "string" ? args : pythonJsonText(args),
          },
        });
      }
      const content = text.replace(TOOL_CALL, "").trim();
      const message: ChatMessage = {
        role: "assistant",
        content: content === "" && calls.length > 0 ? null : content,
      };
      if (calls.length > 0) message.tool_calls = calls;
      messages.push(message);
      pending = [...calls];
    } else {
      const bodies = [...turn.value.matchAll(TOOL_RESPONSE)].map((match) => match[1]);
      if (bodies.length === 0) bodies.push(turn.value);
      for (const body of bodies) {
        const call = pending.shift();
        if (call === undefined) {
          throw new UsageError(`${where(index)}: tool response without a pending <tool_call>`);
        }
        messages.push({ role: "tool", tool_call_id: call.id, content: responseContent(body) });
      }
    }
  });
  if (pending.length > 0) {
    throw new UsageError(
      `${path}: line ${line}: tool call '${pending[0].function.name}' has no <tool_response>`,
    );
  }
  return messages;
}

/** Imports one trajectory from ShareGPT JSONL text (errors name the file, line and turn). */
export function importShareGpt(
  text: string,
  path: string,
  options: ImportOptions = {},
): ImportedTranscript {
  const lines = text.split("\n").map((content, i) => ({ content: content.trim(), line: i + 1 }))
    .filter((entry) => entry.content !== "");
  if (lines.length === 0) throw new UsageError(`${path}: no trajectories (empty file)`);
  const sample = options.sample ?? 0;
  if (!Number.isInteger(sample) || sample < 0 || sample >= lines.length) {
    throw new UsageError(
      `${path}: sample ${sample} out of range (the file has ${lines.length} trajectories)`,
    );
  }
  const { content, line } = lines[sample];
  const parsed = ShareGptRecordSchema.safeParse(parseJsonText(content, `${path}: line ${line}`));
  if (!parsed.success) throw issueError(path, `line ${line}: `, parsed.error);
  const { conversations: _conversations, ...rest } = parsed.data;
  const meta: Record<string, unknown> = { sample, line, trajectories: lines.length };
  for (const key of ["model", "source", "completed", "timestamp"]) if (key in rest) meta[key] = rest[key];
  return {
    format: "sharegpt",
    path,
    messages: convert(parsed.data, path, line),
    probes: [],
    meta,
    notes: [],
  };
}
