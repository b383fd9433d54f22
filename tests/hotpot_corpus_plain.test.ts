import assert from "node:assert/strict";
import { CorpusQuestionSchema, isPlainCorpusQuestion } from "../src/suites/hotpot/corpus.ts";
import { parseJson } from "../src/core/json_read.ts";

/** Good questions: every optional member absent, present, and null where the schema allows it. */
function goods(): Record<string, unknown>[] {
  const base = {
    id: "q1",
    type: "bridge",
    level: "hard",
    question: "Who?",
    context: [{ title: "A", sentences: ["One.", ""] }, { title: "", sentences: [] }],
    collection: "scripted",
    valid: true,
    trajectory: [
      { role: "system", content: "s" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
      },
      { role: "tool", content: "x", tool_call_id: "c1", name: "read" },
      { role: "user", content: "" },
    ],
  };
  return [
    base,
    {
      ...base,
      type: "comparison",
      valid: false,
      reason: "why",
      collection: "agent",
      context: [],
      trajectory: [],
    },
    { ...base, system_prompt: null, files_unchanged: "verified" },
    { ...base, system_prompt: { text: "t", sha256: "0".repeat(64) }, files_unchanged: "not verifiable" },
  ];
}

const BAD_VALUES: unknown[] = [undefined, null, 0, 1.5, true, "", "x", "function", [], [1], {}, { a: 1 }];

/** Every value reached by replacing one member (or element) of `value` with each bad value, or adding one. */
function* variants(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const inner of variants(value[i])) yield value.map((v, j) => j === i ? inner : v);
    }
    for (const bad of BAD_VALUES) yield [...value, bad];
    return;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const { [key]: _dropped, ...rest } = record;
      yield rest;
      for (const inner of variants(record[key])) yield { ...record, [key]: inner };
    }
    for (
      const key of ["extra", "reason", "system_prompt", "files_unchanged", "tool_calls", "name", "__proto__"]
    ) {
      if (Object.hasOwn(record, key)) continue;
      for (const bad of BAD_VALUES) {
        yield parseJson(JSON.stringify({ ...record, [key]: bad }).replace('"k__', '"'));
      }
    }
    return;
  }
  yield* BAD_VALUES;
}

Deno.test("a corpus question passes the plain check only when the schema accepts it and gives it back as it is", () => {
  let plain = 0;
  let refused = 0;
  for (const good of goods()) {
    // As the check reads it: parsed by the program's JSON reader (objects without a prototype).
    assert.ok(isPlainCorpusQuestion(parseJson(JSON.stringify(good))), JSON.stringify(good));
    for (const variant of variants(good)) {
      const value = variant === undefined ? undefined : parseJson(JSON.stringify(variant) ?? "null");
      const parsed = CorpusQuestionSchema.safeParse(value);
      if (isPlainCorpusQuestion(value)) {
        plain++;
        assert.ok(parsed.success, JSON.stringify(value));
        assert.deepEqual(JSON.parse(JSON.stringify(parsed.data)), JSON.parse(JSON.stringify(value)));
      } else if (!parsed.success) refused++;
    }
  }
  assert.ok(plain > 50 && refused > 500, `${plain} plain, ${refused} refused`);
});
