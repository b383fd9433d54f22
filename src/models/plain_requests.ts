/**
 * Fast acceptance of the usual requests (plain chat messages, plain noul questions) and System One replies
 * before the clients' zod schemas. One-sided: yes only for a value its schema accepts; a no leaves the decision
 * to the schema, so a value is refused exactly when its schema refuses it and the common case skips zod's
 * general parser.
 * @module
 */

const ROLES = new Set(["system", "user", "assistant", "tool"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isOptionalString(value: unknown): boolean {
  return value === undefined || typeof value === "string";
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === "string" && value.length > 0;
}

/** A tool call `ToolCallSchema` accepts: `{id, type: "function", function: {name, arguments}}`. */
function isPlainToolCall(call: unknown): boolean {
  if (!isRecord(call) || !isNonEmptyString(call.id) || call.type !== "function") return false;
  const fn = call.function;
  return isRecord(fn) && isNonEmptyString(fn.name) && typeof fn.arguments === "string";
}

/** True only when `ChatMessageSchema` accepts `message`. */
export function isPlainMessage(message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (typeof message.role !== "string" || !ROLES.has(message.role)) return false;
  if (message.content !== null && typeof message.content !== "string") return false;
  if (!isOptionalString(message.tool_call_id) || !isOptionalString(message.name)) return false;
  const calls = message.tool_calls;
  if (calls === undefined) return true;
  if (!Array.isArray(calls)) return false;
  for (let i = 0; i < calls.length; i++) {
    if (!(i in calls) || !isPlainToolCall(calls[i])) return false;
  }
  return true;
}

/** True only when the chat request schema accepts `request` (one with `tools` is left to the schema). */
export function isPlainChatRequest(request: unknown): boolean {
  if (!isRecord(request) || request.tools !== undefined) return false;
  const maxTokens = request.max_tokens;
  if (
    maxTokens !== undefined &&
    !(typeof maxTokens === "number" && Number.isSafeInteger(maxTokens) && maxTokens > 0)
  ) {
    return false;
  }
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (let i = 0; i < messages.length; i++) {
    if (!(i in messages) || !isPlainMessage(messages[i])) return false;
  }
  return true;
}

/** True only when the decision client's question-list schema accepts `questions`. */
export function isPlainQuestionList(questions: unknown): boolean {
  if (!Array.isArray(questions)) return false;
  for (let i = 0; i < questions.length; i++) {
    if (!(i in questions)) return false;
    const question: unknown = questions[i];
    if (!isRecord(question) || question.type !== "noul" || typeof question.instructions !== "string") {
      return false;
    }
    if (!isOptionalString(question.criteria)) return false;
  }
  return true;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A System One reply as `SystemOneResponseSchema` parses it. */
export interface PlainSystemOneReply {
  model: string;
  system_fingerprint?: string | null;
  answers: { type: "noul"; noul: number }[];
  usage: { input_tokens: number; output_tokens: number };
}

/**
 * The usual reply as the schema would parse it, without zod's general parser: one-sided, a value only when
 * `SystemOneResponseSchema` accepts `json` (null leaves the decision and the error message to the schema).
 */
export function plainSystemOneResponse(json: unknown): PlainSystemOneReply | null {
  if (!isRecord(json) || typeof json.model !== "string" || json.model.length === 0) return null;
  const fingerprint = json.system_fingerprint;
  if (fingerprint !== undefined && fingerprint !== null && typeof fingerprint !== "string") return null;
  const { answers, usage } = json;
  if (!Array.isArray(answers) || !isRecord(usage)) return null;
  if (!isCount(usage.input_tokens) || !isCount(usage.output_tokens)) return null;
  const out: PlainSystemOneReply["answers"] = [];
  for (let i = 0; i < answers.length; i++) {
    if (!(i in answers)) return null;
    const answer: unknown = answers[i];
    if (!isRecord(answer) || answer.type !== "noul") return null;
    const noul = answer.noul;
    if (typeof noul !== "number" || !Number.isFinite(noul) || noul < 0 || noul > 1) return null;
    out.push({ type: "noul", noul });
  }
  return {
    model: json.model,
    ...("system_fingerprint" in json ? { system_fingerprint: fingerprint } : {}),
    answers: out,
    usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
  };
}
