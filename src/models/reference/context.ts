/**
 * How the reference model reads its context: which messages are context, which line is the question, and
 * the one parser that turns context text into sentences with provenance.
 *
 * @module
 */
import type { ChatMessage } from "../messages.ts";
import { splitSentences } from "./text.ts";
import { parseJson } from "../../core/json_read.ts";

/** A context sentence; `title` and `sentenceId` are set when the text carried provenance. */
export interface ContextSentence {
  text: string;
  title?: string;
  sentenceId?: number;
}

/** A piece of context text and the title to use for numbered lines with no header above them. */
export interface ContextText {
  text: string;
  fallbackTitle?: string;
  /** Set when the text is a system message's. */
  system?: true;
}

const NUMBERED = /^\s*(\d+)\|(.*)$/;
const CITED = /^\s*\[(.+?),\s*(\d+)\]\s*(.*)$/;

/**
 * Turns a title header or a file path into a title: strips markdown `#`, `==>`/`<==` markers and a
 * `Title:`/`File:`/`Path:` prefix; a bare file path (no spaces, ending in `.txt`, `.md` or `.json`) becomes
 * its base name without the extension, underscores read as spaces.
 */
export function titleFromHeader(header: string): string {
  let title = header.trim().replace(/^#+\s*/, "").replace(/^==>\s*/, "").replace(/\s*<==$/, "");
  title = title.replace(/^(?:title|file|path)\s*:\s*/i, "").trim();
  if (/^[^\s]+\.(?:txt|md|json)$/i.test(title)) {
    title = title.replace(/^.*\//, "").replace(/\.[^.]+$/, "").replace(/_/g, " ");
  }
  return title;
}

/**
 * Splits one context text into sentences, keeping provenance where the text carries it. Line by line:
 *
 * - `[title, N] text` is sentence N (the id itself) of `title`;
 * - `N|text` (optionally indented; a workspace file read through `read_file`, 1-based line numbers) is
 *   sentence N−1 of the current title;
 * - any other line directly followed (blank lines skipped) by an `N|text` line is a title header: the
 *   current title becomes {@link titleFromHeader} of it, and it is not itself a sentence; numbered lines
 *   with no header above them use `fallbackTitle` (when there is none they have no provenance);
 * - every other line is prose, split by `splitSentences` into sentences without provenance.
 */
export function parseContextSentences(text: string, fallbackTitle?: string): ContextSentence[] {
  const lines = text.split(/\r?\n/);
  const numbered = lines.map((line) => NUMBERED.test(line));
  const sentences: ContextSentence[] = [];
  let title = fallbackTitle;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (line.trim() === "") continue;
    const number = NUMBERED.exec(line);
    if (number) {
      const sentence = number[2].trim();
      if (sentence === "") continue;
      if (title !== undefined && title !== "") {
        sentences.push({ text: sentence, title, sentenceId: Number(number[1]) - 1 });
      } else {
        sentences.push({ text: sentence });
      }
      continue;
    }
    const cited = CITED.exec(line);
    if (cited && cited[3].trim() !== "") {
      sentences.push({ text: cited[3].trim(), title: cited[1].trim(), sentenceId: Number(cited[2]) });
      continue;
    }
    let next = index + 1;
    while (next < lines.length && lines[next].trim() === "") next++;
    if (next < lines.length && numbered[next]) {
      title = titleFromHeader(line);
      continue;
    }
    for (const sentence of splitSentences(line)) sentences.push({ text: sentence });
  }
  return sentences;
}

/** Index of the last user message, or -1. */
export function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index].role === "user") return index;
  }
  return -1;
}

/** The text of a message as context: a tool result that is a JSON object with a string `content` is unwrapped. */
export function messageText(message: ChatMessage): string {
  const content = message.content ?? "";
  if (message.role === "tool" && content.trimStart().startsWith("{")) {
    try {
      const parsed: unknown = parseJson(content);
      if (
        parsed !== null && typeof parsed === "object" && "content" in parsed &&
        typeof parsed.content === "string"
      ) {
        return parsed.content;
      }
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  return content;
}

/** The `path` argument of a `read_file` tool call, or undefined. */
export function readFilePath(argumentsJson: string): string | undefined {
  try {
    const parsed: unknown = parseJson(argumentsJson);
    if (
      parsed !== null && typeof parsed === "object" && "path" in parsed && typeof parsed.path === "string"
    ) {
      return parsed.path;
    }
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  return undefined;
}

const LISTED_FILE = /^\s*[-*]\s+`?([^\s`]+)`?(?:\s+\(article:\s*(.+)\))?\s*$/;

/**
 * The files listed as `- path` or `- path (article: Title)` lines in the first user message, in order, with
 * the article title when the line names one.
 */
export function listedFiles(messages: readonly ChatMessage[]): { path: string; title?: string }[] {
  const first = messages.find((message) => message.role === "user");
  const files: { path: string; title?: string }[] = [];
  for (const line of (first?.content ?? "").split(/\r?\n/)) {
    const match = LISTED_FILE.exec(line);
    if (match) files.push(match[2] ? { path: match[1], title: match[2].trim() } : { path: match[1] });
  }
  return files;
}

/**
 * The context of a request: every message except the last user message, in order, system messages
 * included (a chat model reads them too: an engine may put its digest there). A tool result gets the title
 * of the file its `read_file` call asked for as fallback title. When no other message but system messages has
 * text, the last user message is context too (after them): it then carries the material.
 */
export function contextTexts(messages: readonly ChatMessage[]): ContextText[] {
  const last = lastUserIndex(messages);
  const paths = new Map<string, string>();
  const titles = new Map(listedFiles(messages).flatMap((f) => (f.title ? [[f.path, f.title] as const] : [])));
  const texts: ContextText[] = [];
  // Texts of non-system messages: without any, the last user message carries the material.
  let material = 0;
  messages.forEach((message, index) => {
    for (const call of message.tool_calls ?? []) {
      const path = call.function.name === "read_file" ? readFilePath(call.function.arguments) : undefined;
      if (path !== undefined) paths.set(call.id, path);
    }
    if (index === last) return;
    const text = messageText(message);
    if (text.trim() === "") return;
    if (message.role !== "system") material++;
    const path = message.tool_call_id !== undefined ? paths.get(message.tool_call_id) : undefined;
    const title = path !== undefined ? titles.get(path) ?? titleFromHeader(path) : undefined;
    texts.push({
      text,
      ...(title !== undefined ? { fallbackTitle: title } : {}),
      ...(message.role === "system" ? { system: true as const } : {}),
    });
  });
  if (material === 0 && last >= 0) texts.push({ text: messageText(messages[last]) });
  return texts;
}

const QUESTION_LINE = /^\s*(?:\*\*)?question(?:\*\*)?\s*:\s*(?:\*\*)?\s*(.+)$/i;

/**
 * The question asked: the first `Question: ...` line of the last user message, else of any other user
 * message (latest first), else the last sentence with a `?` of the last line containing one in the last user
 * message, then in the other user messages, else the whole last user message.
 */
export function findQuestion(messages: readonly ChatMessage[]): string {
  const last = lastUserIndex(messages);
  if (last < 0) return "";
  const users = [
    last,
    ...messages.map((_, index) => index).filter((i) => i !== last && messages[i].role === "user").reverse(),
  ];
  const linesOf = (index: number) => (messages[index].content ?? "").split(/\r?\n/);
  for (const index of users) {
    for (const line of linesOf(index)) {
      const match = QUESTION_LINE.exec(line);
      if (match) return match[1].trim();
    }
  }
  for (const index of users) {
    const asking = linesOf(index).filter((line) => line.includes("?"));
    if (asking.length > 0) {
      const sentences = splitSentences(asking[asking.length - 1]).filter((sentence) =>
        sentence.includes("?")
      );
      return sentences[sentences.length - 1];
    }
  }
  return (messages[last].content ?? "").trim();
}
