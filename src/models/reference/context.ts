/**
 * How the reference model reads its context: which messages are context, which line is the question, and
 * the one parser that turns context text into sentences with provenance.
 * @module
 */
import { type ChatMessage, toolCallArguments } from "../messages.ts";
import { splitSentences } from "./text.ts";

/** A context sentence; `title` and `sentenceId` are set when the text carried provenance. */
export interface ContextSentence {
  text: string;
  title?: string;
  sentenceId?: number;
}

/** A piece of context text and the title to use for numbered lines with no header above them. */
interface ContextText {
  text: string;
  fallbackTitle?: string;
  system?: true;
}

const NUMBERED = /^\s*(\d+)\|(.*)$/;
const CITED = /^\s*\[(.+?),\s*(\d+)\]\s*(.*)$/;

/**
 * A title header or file path as a title: `#`, `==>`/`<==` and a `Title:`/`File:`/`Path:` prefix stripped; a
 * bare `.txt`/`.md`/`.json` path becomes its base name without the extension, underscores read as spaces.
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
 * Splits one context text into sentences with provenance, line by line: `[title, N] text` is sentence N of
 * `title`; `N|text` (a file read through `read_file`) is sentence N−1 of the current title, set by the line
 * before a run of numbered lines (else `fallbackTitle`); every other line is prose without provenance.
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
      sentences.push(
        title ? { text: sentence, title, sentenceId: Number(number[1]) - 1 } : { text: sentence },
      );
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
  return messages.findLastIndex((message) => message.role === "user");
}

/** The string `field` of `json` when it parses to an object that has one. */
function stringField(json: string, field: string): string | undefined {
  const value = toolCallArguments(json)?.[field];
  return typeof value === "string" ? value : undefined;
}

/** The text of a message as context: a tool result that is a JSON object with a string `content` is unwrapped. */
function messageText(message: ChatMessage): string {
  const content = message.content ?? "";
  const unwrapped = message.role === "tool" && content.trimStart().startsWith("{")
    ? stringField(content, "content")
    : undefined;
  return unwrapped ?? content;
}

const LISTED_FILE = /^\s*[-*]\s+`?([^\s`]+)`?(?:\s+\(article:\s*(.+)\))?\s*$/;

/** The files listed as `- path` or `- path (article: Title)` lines in the first user message, in order. */
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
 * The context of a request: every message but the last user message, system messages included (an engine may
 * put its digest there); a `read_file` result titled by its file. Without other material, the last user
 * message is context too.
 */
export function contextTexts(messages: readonly ChatMessage[]): ContextText[] {
  const last = lastUserIndex(messages);
  const paths = new Map<string, string>();
  const titles = new Map(listedFiles(messages).flatMap((f) => (f.title ? [[f.path, f.title] as const] : [])));
  const texts: ContextText[] = [];
  let material = 0;
  messages.forEach((message, index) => {
    for (const call of message.tool_calls ?? []) {
      const path = call.function.name === "read_file"
        ? stringField(call.function.arguments, "path")
        : undefined;
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
 * The question asked: the first `Question: ...` line of the user messages (the last first, then latest first),
 * else the last `?` sentence of their last line holding one, else the whole last user message.
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
