/**
 * A small outside engine for tests: keeps the leading system messages and the newest K messages (default
 * 6), moving the cut forward so it never starts on a tool result. As a script it speaks the exec
 * protocol (JSON on stdin, JSON on stdout; `deno run keep_last_engine.ts [K]`); tests serve
 * {@link keepLast} over HTTP for the http protocol.
 *
 * @module
 */

interface Message {
  role: string;
  content: string | null;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

/** Applies the engine to a request body `{messages, budget_tokens, current_tokens}`. */
export function keepLast(body: { messages: Message[] }, k: number): { messages: Message[] } {
  const { messages } = body;
  let head = 0;
  while (head < messages.length && messages[head].role === "system") head++;
  let start = Math.max(head, messages.length - k);
  while (start < messages.length && messages[start].role === "tool") start++;
  return { messages: [...messages.slice(0, head), ...messages.slice(start)] };
}

if (import.meta.main) {
  const k = Number(Deno.args[0] ?? "6");
  const input = JSON.parse(await new Response(Deno.stdin.readable).text());
  console.log(JSON.stringify(keepLast(input, k)));
}
