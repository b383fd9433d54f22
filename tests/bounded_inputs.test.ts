/**
 * Inputs are bounded per field, with errors naming the file and the record: a transcript message over 4 million
 * characters (in any format), a dataset record with a 20,000-character question; a text file too large for one
 * string is refused as too large (never "not valid UTF-8"), before anything is read; a lone surrogate is refused
 * by every JSON loader naming the file and the place.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { importTranscript, importTranscriptText } from "../src/data/transcripts/import.ts";
import { MAX_MESSAGE_CHARS } from "../src/data/transcripts/types.ts";
import { hotpotRecordsFromOfficialJson, loadHotpotJson } from "../src/data/hotpot_json.ts";
import { MAX_TEXT_BYTES, readInputText } from "../src/fs_input.ts";
import { UsageError } from "../src/errors.ts";

const big = "x".repeat(MAX_MESSAGE_CHARS + 1);

Deno.test("a transcript message over the bound is refused naming the file and the message, in every format", () => {
  const openai = JSON.stringify([{ role: "user", content: "hi" }, { role: "assistant", content: big }]);
  assert.throws(
    () => importTranscriptText(openai, "t.json"),
    (error: unknown) => error instanceof UsageError && /^t\.json: .*\[1\].*content/.test(error.message),
  );
  const sharegpt = JSON.stringify({
    conversations: [{ from: "human", value: "hi" }, { from: "gpt", value: big }],
  });
  assert.throws(
    () => importTranscriptText(sharegpt, "t.jsonl", "sharegpt"),
    (error: unknown) =>
      error instanceof UsageError && error.message.includes("t.jsonl: messages[") &&
      error.message.includes(`more than the ${MAX_MESSAGE_CHARS} one message may hold`),
  );
});

Deno.test("a dataset record with a 20,000-character question is refused naming the file, record and field", () => {
  const record = {
    _id: "q1",
    question: "Q".repeat(20_000),
    answer: "yes",
    type: "comparison",
    level: "easy",
    supporting_facts: [["A", 0]],
    context: [["A", ["One sentence."]]],
  };
  assert.throws(
    () => hotpotRecordsFromOfficialJson([record], "dev.json"),
    (error: unknown) =>
      error instanceof UsageError && /^dev\.json: record 0: field question: /.test(error.message),
  );
});

Deno.test("a text file too large for one string is refused as too large, before it is read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bounded_inputs_" });
  try {
    const path = join(dir, "huge.json");
    using file = await Deno.open(path, { write: true, create: true });
    await file.truncate(MAX_TEXT_BYTES + 1); // sparse zeros: valid UTF-8, just too large
    await assert.rejects(
      () => readInputText(path, "--dataset"),
      (error: unknown) =>
        error instanceof UsageError && error.message.includes(`${MAX_TEXT_BYTES + 1} bytes, more than`) &&
        !error.message.includes("UTF-8"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a lone surrogate is refused by every JSON loader the same way, naming the file and the place", async () => {
  const dir = await Deno.makeTempDir({ prefix: "lone_surrogate_" });
  try {
    const transcript = join(dir, "t.json");
    await Deno.writeTextFile(
      transcript,
      '[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x\\ud800y"}]',
    );
    await assert.rejects(
      () => importTranscript(transcript),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message === `${transcript}: $[1].content: a string with a lone surrogate`,
    );
    const dataset = join(dir, "dev.json");
    await Deno.writeTextFile(dataset, '[{"_id": "q\\udc00"}]');
    await assert.rejects(
      () => loadHotpotJson(dataset),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message === `${dataset}: $[0]._id: a string with a lone surrogate`,
    );
    const paired = join(dir, "paired.json");
    await Deno.writeTextFile(paired, '[{"role": "user", "content": "emoji \\ud83d\\ude00"}]');
    assert.equal((await importTranscript(paired)).messages[0].content, "emoji 😀");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
