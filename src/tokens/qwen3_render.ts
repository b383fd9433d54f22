/**
 * Qwen3's chat template written out in TypeScript for plain input, the very text `@huggingface/jinja` renders,
 * so a fit's bisection skips the interpreter (tests/tokens_qwen3_render.test.ts compares).
 * @module
 */

/** SHA-256 (hex) of the chat template text this module renders. */
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
