/**
 * `importTranscript(path, format)`: reads a transcript in any supported format, detecting it for `auto`.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { importLocomo } from "./locomo.ts";
import { importHermesSession, importOpenAIMessages } from "./openai.ts";
import { readInputText } from "../../fs_input.ts";
import { importShareGpt } from "./sharegpt.ts";
import {
  type ImportedTranscript,
  type ImportOptions,
  MAX_MESSAGE_CHARS,
  MAX_TRANSCRIPT_MESSAGES,
  parseJsonText,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from "./types.ts";

/** Detects the format of parsed JSON, or null when it matches none. */
export function detectFormat(json: unknown): TranscriptFormat | null {
  const first = Array.isArray(json) ? json[0] : json;
  if (first === null || typeof first !== "object" || Array.isArray(first)) return null;
  if ("conversation" in first && "qa" in first) return "locomo";
  if ("conversations" in first) return "sharegpt";
  if (Array.isArray(json)) return "role" in first ? "openai" : null;
  if ("messages" in first) {
    const hermes = "scrubbing_passes" in first ||
      ("source" in first && ("name" in first || "model" in first));
    return hermes ? "hermes-session" : "openai";
  }
  return null;
}

/** Imports the transcript at `path` (one without messages is refused); a {@link UsageError} names the place. */
export async function importTranscript(
  path: string,
  format: "auto" | TranscriptFormat = "auto",
  options: ImportOptions = {},
): Promise<ImportedTranscript> {
  if (format !== "auto" && !TRANSCRIPT_FORMATS.includes(format)) {
    throw new UsageError(
      `unknown transcript format '${format}' (expected auto, ${TRANSCRIPT_FORMATS.join(", ")})`,
    );
  }
  const text = await readInputText(path, "--transcript");
  const chosen = format === "auto" && path.endsWith(".jsonl") ? "sharegpt" : format;
  const transcript = importTranscriptText(text, path, chosen, options);
  if (transcript.messages.length === 0) {
    throw new UsageError(`${path}: the transcript has no messages; there is nothing to measure`);
  }
  return transcript;
}

/** Imports a transcript from its text (`path` names it in errors). */
export function importTranscriptText(
  text: string,
  path: string,
  format: "auto" | TranscriptFormat = "auto",
  options: ImportOptions = {},
): ImportedTranscript {
  return checkSizes(importParsed(text, path, format, options));
}

/** Refuses a transcript past {@link MAX_TRANSCRIPT_MESSAGES} messages or {@link MAX_MESSAGE_CHARS} in a field. */
function checkSizes(imported: ImportedTranscript): ImportedTranscript {
  const { messages, path } = imported;
  if (messages.length > MAX_TRANSCRIPT_MESSAGES) {
    throw new UsageError(
      `${path}: ${messages.length} messages, more than the ${MAX_TRANSCRIPT_MESSAGES} allowed`,
    );
  }
  messages.forEach((message, index) => {
    const fields: [string, string][] = [["content", message.content ?? ""]];
    message.tool_calls?.forEach((call, c) =>
      fields.push([`tool_calls[${c}].function.arguments`, call.function.arguments])
    );
    for (const [field, value] of fields) {
      if (value.length > MAX_MESSAGE_CHARS) {
        throw new UsageError(
          `${path}: messages[${index}].${field}: ${value.length} characters, more than the ${MAX_MESSAGE_CHARS} one message may hold`,
        );
      }
    }
  });
  return imported;
}

function importParsed(
  text: string,
  path: string,
  format: "auto" | TranscriptFormat,
  options: ImportOptions,
): ImportedTranscript {
  // ShareGPT is JSONL; a JSON array of its records is read as one record a line.
  if (format === "sharegpt" && !text.trimStart().startsWith("[")) return importShareGpt(text, path, options);
  const json = parseJsonText(text, path);
  const detected = format === "auto" ? detectFormat(json) : format;
  switch (detected) {
    case "openai":
      return importOpenAIMessages(json, path);
    case "hermes-session":
      return importHermesSession(json, path);
    case "locomo":
      return importLocomo(json, path, options);
    case "sharegpt": {
      const records = Array.isArray(json) ? json : [json];
      return importShareGpt(records.map((record) => JSON.stringify(record)).join("\n"), path, options);
    }
    default:
      throw new UsageError(
        `${path}: cannot detect the transcript format (expected a message list, {messages}, a Hermes session, ` +
          `ShareGPT {conversations} or LoCoMo {conversation, qa}); name it with a format`,
      );
  }
}
