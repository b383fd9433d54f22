/**
 * Renders chat messages with a model's own Jinja chat template, as `transformers`' `apply_chat_template` does.
 * @module
 */
import { createHash } from "node:crypto";
import { Template } from "@huggingface/jinja";
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import { renderBounded, renderBounds, TemplateLimitError } from "./bounded_render.ts";
import { QWEN3_TEMPLATE_SHA256, renderQwen3 } from "./qwen3_render.ts";
import { parseJson } from "../core/json_read.ts";

/** How OpenAI-format messages are turned into what the chat template sees. */
export interface TemplateViewOptions {
  /** Parse tool-call `arguments` JSON into objects before rendering (as vLLM does); default: passed as given. */
  parseToolArguments?: boolean;
  /** Calls (`"<message>:<call>"`) whose `arguments` were a JSON object in the source: rendered as an object. */
  objectArgumentCalls?: ReadonlySet<string>;
}

/** The key of a tool call in {@link TemplateViewOptions.objectArgumentCalls}. */
export function toolCallKey(messageIndex: number, callIndex: number): string {
  return `${messageIndex}:${callIndex}`;
}

/** The template view of messages: `content: null` as `""` (as Qwen3 needs), `undefined` keys dropped. */
export function templateView(
  messages: ChatMessage[],
  options: TemplateViewOptions = {},
): Record<string, unknown>[] {
  return messages.map((message, messageIndex) => {
    const view: Record<string, unknown> = { role: message.role, content: message.content ?? "" };
    if (message.tool_calls !== undefined) {
      view.tool_calls = message.tool_calls.map((call, callIndex) => ({
        id: call.id,
        type: call.type,
        function: {
          name: call.function.name,
          arguments: options.parseToolArguments ||
              options.objectArgumentCalls?.has(toolCallKey(messageIndex, callIndex))
            ? parseArguments(call.function.arguments)
            : call.function.arguments,
        },
      }));
    }
    if (message.tool_call_id !== undefined) view.tool_call_id = message.tool_call_id;
    if (message.name !== undefined) view.name = message.name;
    return view;
  });
}

function parseArguments(text: string): unknown {
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof SyntaxError) return text;
    throw error;
  }
}

/** Compiles a chat template's text; a text that does not parse is a `SyntaxError` naming `source`. */
function compileTemplate(template: string, source: string): Template {
  try {
    return new Template(template);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new SyntaxError(`${source}: chat_template does not parse: ${error.message}`, { cause: error });
  }
}

/** A chat template with the special tokens bound; Qwen3's is compiled only when the interpreter renders. */
export class ChatTemplate {
  readonly #text: string;
  #compiled: Template | undefined;
  readonly #specialTokens: Record<string, string>;
  readonly #source: string;
  /** False when the template reads the clock (`strftime_now`): its renders' counts are not reused. */
  readonly pure: boolean;
  /** True when the template is Qwen3's, which `qwen3_render.ts` renders natively for plain input. */
  readonly native: boolean;

  /** Compiles `template`; `source` names its origin in errors (a `SyntaxError` when it does not parse). */
  constructor(template: string, specialTokens: Record<string, string>, source: string) {
    this.#source = source;
    this.#specialTokens = specialTokens;
    this.pure = !template.includes("strftime_now");
    this.native = createHash("sha256").update(template, "utf8").digest("hex") === QWEN3_TEMPLATE_SHA256;
    this.#text = template;
    if (!this.native) this.#compiled = compileTemplate(template, source);
  }

  get #template(): Template {
    return this.#compiled ??= compileTemplate(this.#text, this.#source);
  }

  /** Renders the messages and tools (`addGenerationPrompt` default true); errors name the template's origin. */
  render(
    messages: ChatMessage[],
    tools?: ToolDefinition[],
    options: TemplateViewOptions & { addGenerationPrompt?: boolean } = {},
  ): string {
    if (this.native && tools === undefined) {
      const text = renderQwen3(templateView(messages, options), options.addGenerationPrompt ?? true);
      if (text !== null) return text;
    }
    return this.renderInterpreted(messages, tools, options);
  }

  /** {@link ChatTemplate.render} by the template interpreter always (what a native render must equal). */
  renderInterpreted(
    messages: ChatMessage[],
    tools?: ToolDefinition[],
    options: TemplateViewOptions & { addGenerationPrompt?: boolean } = {},
  ): string {
    const view = templateView(messages, options);
    const inputChars = () => JSON.stringify(view).length + (tools ? JSON.stringify(tools).length : 0);
    try {
      return renderBounded(this.#template, {
        ...this.#specialTokens,
        messages: view,
        tools: tools ?? null,
        documents: null,
        add_generation_prompt: options.addGenerationPrompt ?? true,
        enable_thinking: false,
      }, renderBounds(messages.length + (tools?.length ?? 0), inputChars));
    } catch (error) {
      if (error instanceof TemplateLimitError) {
        throw new TemplateLimitError(`${this.#source}: ${error.message}`);
      }
      if (!(error instanceof Error)) throw error;
      throw new Error(
        `${this.#source}: chat template failed to render ${messages.length} message(s): ${error.message}`,
        { cause: error },
      );
    }
  }
}
