import assert from "node:assert/strict";
import { ChatRequestSchema, isPlainChatRequest } from "../src/models/chat_client.ts";
import {
  isPlainQuestionList,
  isPlainSystemOneResponse,
  NoulQuestionsSchema,
  SystemOneResponseSchema,
} from "../src/models/decision_client.ts";
import { assertOneSided } from "./helpers/one_sided.ts";

class Box {
  constructor(readonly role: string, readonly content: string) {}
}

/** Values a field may take: the right ones and many wrong ones. */
const ODD: unknown[] = [
  undefined,
  null,
  "",
  "x",
  0,
  -1,
  1.5,
  7,
  Number.NaN,
  Infinity,
  2 ** 60,
  true,
  [],
  {},
  [1],
  new String("user"),
  Symbol("s"),
  10n,
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

function toolCall(next: () => number): unknown {
  if (next() < 0.15) return pick(next, ODD);
  const call: Record<string, unknown> = {
    id: next() < 0.85 ? "call_1" : pick(next, ODD),
    type: next() < 0.85 ? "function" : pick(next, ["tool", ...ODD]),
    function: next() < 0.1 ? pick(next, ODD) : {
      name: next() < 0.85 ? "read" : pick(next, ODD),
      arguments: next() < 0.85 ? '{"path":"a"}' : pick(next, ODD),
    },
  };
  if (next() < 0.2) call.extra = pick(next, ODD);
  return call;
}

function message(next: () => number): unknown {
  const roll = next();
  if (roll < 0.05) return pick(next, ODD);
  if (roll < 0.08) return new Box("user", "hello");
  const out: Record<string, unknown> = {
    role: next() < 0.85
      ? pick(next, ["system", "user", "assistant", "tool"])
      : pick(next, ["developer", ...ODD]),
  };
  if (next() < 0.95) out.content = next() < 0.85 ? pick(next, ["", "text", null]) : pick(next, ODD);
  if (next() < 0.25) {
    out.tool_calls = next() < 0.8
      ? Array.from({ length: Math.floor(next() * 3) }, () => toolCall(next))
      : pick(
        next,
        ODD,
      );
    if (Array.isArray(out.tool_calls) && next() < 0.1) out.tool_calls.length += 1; // a hole
  }
  if (next() < 0.2) out.tool_call_id = next() < 0.8 ? "call_1" : pick(next, ODD);
  if (next() < 0.1) out.name = next() < 0.8 ? "n" : pick(next, ODD);
  if (next() < 0.1) out.unknown_field = pick(next, ODD);
  return out;
}

function chatRequest(next: () => number): unknown {
  if (next() < 0.03) return pick(next, ODD);
  const out: Record<string, unknown> = {};
  if (next() < 0.97) {
    out.messages = next() < 0.9
      ? Array.from({ length: Math.floor(next() * 5) }, () => message(next))
      : pick(next, ODD);
    if (Array.isArray(out.messages) && next() < 0.05) out.messages.length += 1; // a hole
  }
  if (next() < 0.5) out.max_tokens = next() < 0.7 ? pick(next, [1, 64, 4096]) : pick(next, ODD);
  if (next() < 0.1) {
    out.tools = next() < 0.5 ? [] : [{ type: "function", function: { name: "read", parameters: {} } }];
  }
  return out;
}

function questionList(next: () => number): unknown {
  if (next() < 0.05) return pick(next, ODD);
  const list: unknown[] = Array.from({ length: Math.floor(next() * 4) }, () => {
    if (next() < 0.05) return pick(next, ODD);
    const q: Record<string, unknown> = {
      type: next() < 0.9 ? "noul" : pick(next, ["yes", ...ODD]),
      instructions: next() < 0.9 ? "Is this useful?" : pick(next, ODD),
    };
    if (next() < 0.2) q.criteria = next() < 0.8 ? "relevance" : pick(next, ODD);
    if (next() < 0.1) q.other = 1;
    return q;
  });
  if (next() < 0.05) list.length += 1; // a hole
  return list;
}

function systemOneResponse(next: () => number): unknown {
  if (next() < 0.03) return pick(next, ODD);
  const count = () => next() < 0.85 ? pick(next, [0, 1, 250]) : pick(next, [-0, 0.5, -3, ...ODD]);
  const out: Record<string, unknown> = {};
  if (next() < 0.97) out.model = next() < 0.9 ? "system-one" : pick(next, ODD);
  if (next() < 0.5) out.system_fingerprint = next() < 0.8 ? pick(next, ["fp", "", null]) : pick(next, ODD);
  if (next() < 0.97) {
    out.answers = next() < 0.93
      ? Array.from({ length: Math.floor(next() * 4) }, () => {
        if (next() < 0.04) return pick(next, ODD);
        const answer: Record<string, unknown> = {
          type: next() < 0.93 ? "noul" : pick(next, ["yes", ...ODD]),
          noul: next() < 0.9 ? pick(next, [0, 0.25, 1, -0]) : pick(next, [1.0001, -0.1, ...ODD]),
        };
        if (next() < 0.1) answer.extra = pick(next, ODD);
        return answer;
      })
      : pick(next, ODD);
    if (Array.isArray(out.answers) && next() < 0.03) out.answers.length += 1; // a hole
  }
  if (next() < 0.97) {
    out.usage = next() < 0.95 ? { input_tokens: count(), output_tokens: count() } : pick(next, ODD);
    if (next() < 0.1 && typeof out.usage === "object" && out.usage !== null) {
      (out.usage as Record<string, unknown>).total_tokens = 3;
    }
  }
  if (next() < 0.1) out.unknown_field = pick(next, ODD);
  return out;
}

Deno.test("the fast chat request check accepts only what the request schema accepts", () => {
  // Tool definitions are left to the schema.
  assertOneSided("chat request", isPlainChatRequest, ChatRequestSchema, chatRequest, { seed: 21 });
});

Deno.test("the fast question list check accepts only what the question schema accepts", () => {
  assertOneSided("questions", isPlainQuestionList, NoulQuestionsSchema, questionList, {
    seed: 21,
    someLeftToSchema: false,
  });
});

Deno.test("the fast System One reply check accepts only what the reply schema accepts, parsed as it parses it", () => {
  const fast = (value: unknown) => {
    if (!isPlainSystemOneResponse(value)) return false;
    const reply = value;
    const parsed = SystemOneResponseSchema.safeParse(value);
    assert.ok(parsed.success, `the fast check accepted what the schema refuses: ${Deno.inspect(value)}`);
    assert.deepStrictEqual(reply, parsed.data, `parsed differently: ${Deno.inspect(value)}`);
    return true;
  };
  assertOneSided("System One reply", fast, SystemOneResponseSchema, systemOneResponse, {
    seed: 21,
    someLeftToSchema: false,
  });
  const usual = {
    model: "m",
    answers: [{ type: "noul", noul: 0.5 }],
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  assert.ok(fast(usual), "the usual reply takes the fast path");
});

Deno.test("the usual requests are accepted by the fast checks", () => {
  assert.ok(isPlainChatRequest({
    messages: [
      { role: "system", content: "s" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", content: "r", tool_call_id: "c" },
      { role: "user", content: "q" },
    ],
    max_tokens: 256,
  }));
  assert.ok(
    isPlainQuestionList([{ type: "noul", instructions: "i" }, {
      type: "noul",
      instructions: "j",
      criteria: "c",
    }]),
  );
  assert.ok(isPlainQuestionList([]));
  assert.ok(!isPlainChatRequest({ messages: [] }), "no messages is left to the schema (which refuses it)");
});
