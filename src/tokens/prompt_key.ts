/**
 * The key of a prompt's cached count: a SHA-256 of everything its render depends on, or none where a text
 * cannot tell renders apart.
 * @module
 */
import { createHash } from "node:crypto";
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import { templateView, type TemplateViewOptions } from "./template.ts";

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
  if (plain !== null) return createHash("sha256").update(plain, "utf8").digest("hex");
  const view = templateView(messages, options);
  if (!jsonFaithful(view) || (tools !== undefined && !jsonFaithful(tools))) return null;
  return createHash("sha256").update(JSON.stringify([generationPrompt, view, tools ?? null]), "utf8").digest(
    "hex",
  );
}
