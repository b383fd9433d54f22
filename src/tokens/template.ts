/**
 * Renders chat messages with a model's own Jinja chat template, as `transformers`' `apply_chat_template` does:
 * interpreted under a step budget and a bound on any string's size (the template is a program from the input),
 * or, for Qwen3's on plain input, by the template written out in TypeScript (the very text the interpreter
 * renders, so a fit's bisection skips it; tests/tokens_qwen3_render.test.ts compares).
 * @module
 */
import { sha256Hex } from "../store/hash.ts";
import { Environment, Interpreter, Template } from "@huggingface/jinja";
import type { ChatMessage, ToolDefinition } from "../core/messages.ts";
import { parseJson } from "../core/json_read.ts";
import { UsageError } from "../errors.ts";

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
  /** True when the template is Qwen3's, which {@link renderQwen3} renders natively for plain input. */
  readonly native: boolean;

  /** Compiles `template`; `source` names its origin in errors (a `SyntaxError` when it does not parse). */
  constructor(template: string, specialTokens: Record<string, string>, source: string) {
    this.#source = source;
    this.#specialTokens = specialTokens;
    this.pure = !template.includes("strftime_now");
    this.native = sha256Hex(template) === QWEN3_TEMPLATE_SHA256;
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

/** The template did more work, or built a larger string, than its bound allows (bad input: exit 2). */
export class TemplateLimitError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = "TemplateLimitError";
  }
}

export interface RenderBounds {
  steps: number;
  /** Characters of any one string value at most (checked only past `charsFloor`). */
  readonly chars: number;
  /** A number known not to exceed `chars`. */
  charsFloor?: number;
}

/** The least bound on a string's characters {@link renderBounds} gives. */
export const BASE_CHARS = 16 * 1024 * 1024;

/**
 * The bounds for rendering `items` messages of `inputChars` characters: generous for real templates, small
 * enough to stop a looping one in seconds (`inputChars` as a function is called only past {@link BASE_CHARS}).
 */
export function renderBounds(items: number, inputChars: number | (() => number)): RenderBounds {
  const steps = 2_000_000 + 20_000 * items;
  if (typeof inputChars === "number") return { steps, chars: BASE_CHARS + 8 * inputChars };
  let chars: number | undefined;
  return {
    steps,
    charsFloor: BASE_CHARS,
    get chars() {
      return chars ??= BASE_CHARS + 8 * inputChars();
    },
  };
}

type Evaluate = Interpreter["evaluate"];

/** `strftime_now` as `@huggingface/jinja` defines it (the subset of codes it supports). */
function strftimeNow(format: string): string {
  const date = new Date();
  const pad2 = (n: number) => (n < 10 ? "0" + n : String(n));
  const codes: Record<string, () => string> = {
    "%Y": () => String(date.getFullYear()),
    "%m": () => pad2(date.getMonth() + 1),
    "%d": () => pad2(date.getDate()),
    "%b": () => new Intl.DateTimeFormat(undefined, { month: "short" }).format(date),
    "%B": () => new Intl.DateTimeFormat(undefined, { month: "long" }).format(date),
    "%H": () => pad2(date.getHours()),
    "%M": () => pad2(date.getMinutes()),
  };
  return String(format).replace(/%[YmdbBHM%]/g, (token) => codes[token]?.() ?? "%");
}

/** Renders a parsed template with `items` under `bounds` (as `Template.render` would); throws on a bound. */
export function renderBounded(
  template: Template,
  items: Record<string, unknown>,
  bounds: RenderBounds,
): string {
  let steps = 0;
  const spend = (n: number) => {
    steps += n;
    if (steps > bounds.steps) {
      throw new TemplateLimitError(
        `the chat template did not finish within ${bounds.steps} evaluation steps (a loop that never ends?)`,
      );
    }
  };
  const range = (start: number, stop?: number, step = 1): number[] => {
    const [from, to] = stop === undefined ? [0, start] : [start, stop];
    if (![from, to, step].every(Number.isInteger)) throw new Error("range() expects integers");
    if (step === 0) throw new Error("range() step must not be zero");
    const length = Math.max(0, Math.ceil((to - from) / step));
    if (!Number.isFinite(length)) {
      throw new TemplateLimitError("the chat template called range() without an end");
    }
    spend(length);
    return Array.from({ length }, (_, i) => from + i * step);
  };
  const floor = bounds.charsFloor ?? 0;
  const env = new Environment();
  const globals: Record<string, unknown> = {
    false: false,
    true: true,
    none: null,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    range,
    strftime_now: strftimeNow,
    True: true,
    False: false,
    None: null,
  };
  for (const [key, value] of Object.entries({ ...globals, ...items })) env.set(key, value);
  const interpreter = new Interpreter(env);
  const evaluate: Evaluate = interpreter.evaluate;
  const maxSteps = bounds.steps;
  interpreter.evaluate = function (statement, environment) {
    if (++steps > maxSteps) spend(0);
    const value = evaluate.call(this, statement, environment);
    const inner = value.value;
    if (typeof inner === "string" && inner.length > floor && inner.length > bounds.chars) {
      throw new TemplateLimitError(
        `the chat template built a string of ${inner.length} characters, more than the ${bounds.chars} allowed`,
      );
    }
    return value;
  };
  const result = interpreter.run(template.parsed);
  return String(result.value);
}

/** SHA-256 (hex) of the chat template text {@link renderQwen3} renders. */
export const QWEN3_TEMPLATE_SHA256 = "87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5";

/** A tool call's function as the template view holds it, when both fields are strings. */
interface PlainFunction {
  name: string;
  arguments: string;
}

function plainFunction(call: unknown): PlainFunction | null {
  const fn = (call as { function?: unknown } | null)?.function as Partial<PlainFunction> | null | undefined;
  if (fn === null || typeof fn !== "object" || Array.isArray(fn)) return null;
  return typeof fn.name === "string" && typeof fn.arguments === "string" ? fn as PlainFunction : null;
}

/** The render of the template view `messages` without tool definitions, or null outside the plain case. */
export function renderQwen3(
  messages: readonly Record<string, unknown>[],
  addGenerationPrompt: boolean,
): string | null {
  const n = messages.length;
  if (n === 0) return null;
  for (let i = 0; i < n; i++) {
    const message = messages[i];
    if (message === null || typeof message !== "object") return null;
    if (typeof message.role !== "string" || typeof message.content !== "string") return null;
    if (message.reasoning_content !== undefined) return null;
    const calls = message.tool_calls;
    if (calls !== undefined) {
      if (!Array.isArray(calls)) return null;
      for (const call of calls) if (plainFunction(call) === null) return null;
    }
  }
  const roleOf = (i: number) => messages[i].role as string;
  const contentOf = (i: number) => messages[i].content as string;
  let out = "";
  if (roleOf(0) === "system") out += `<|im_start|>system\n${contentOf(0)}<|im_end|>\n`;
  // The last user message that is not a wrapped tool response (the template's ns.last_query_index).
  let lastQuery = n - 1;
  for (let i = n - 1; i >= 0; i--) {
    const content = contentOf(i);
    if (
      roleOf(i) === "user" && !(content.startsWith("<tool_response>") && content.endsWith("</tool_response>"))
    ) {
      lastQuery = i;
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const role = roleOf(i);
    const text = contentOf(i);
    if (role === "user" || (role === "system" && i !== 0)) {
      out += `<|im_start|>${role}\n${text}<|im_end|>\n`;
    } else if (role === "assistant") {
      let content = text;
      let reasoning = "";
      if (text.includes("</think>")) {
        const parts = text.split("</think>");
        content = parts[parts.length - 1].trimStart();
        const opened = parts[0].trimEnd().split("<think>");
        reasoning = opened[opened.length - 1].trimStart();
      }
      if (i > lastQuery && (i === n - 1 || reasoning !== "")) {
        out += `<|im_start|>${role}\n<think>\n${reasoning.trim()}\n</think>\n\n${content.trimStart()}`;
      } else {
        out += `<|im_start|>${role}\n${content}`;
      }
      const calls = messages[i].tool_calls as unknown[] | undefined;
      if (calls !== undefined) {
        for (let j = 0; j < calls.length; j++) {
          if (j !== 0 || content !== "") out += "\n";
          const fn = plainFunction(calls[j])!;
          out += `<tool_call>\n{"name": "${fn.name}", "arguments": ${fn.arguments}}\n</tool_call>`;
        }
      }
      out += "<|im_end|>\n";
    } else if (role === "tool") {
      if (i === 0 || roleOf(i - 1) !== "tool") out += "<|im_start|>user";
      out += `\n<tool_response>\n${text}\n</tool_response>`;
      if (i === n - 1 || roleOf(i + 1) !== "tool") out += "<|im_end|>\n";
    }
  }
  if (addGenerationPrompt) out += "<|im_start|>assistant\n<think>\n\n</think>\n\n";
  return out;
}
