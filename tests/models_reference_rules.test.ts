import assert from "node:assert/strict";
import type { ChatMessage, ToolDefinition } from "../src/models/messages.ts";
import { bm25Scores, rankByRelevance } from "../src/models/reference/bm25.ts";
import { fitToTokens, listedPaths, NOT_IN_CONTEXT, referenceReply } from "../src/models/reference/chat.ts";
import { findQuestion, parseContextSentences, titleFromHeader } from "../src/models/reference/context.ts";
import { isYesNoQuestion, pickAnswerSpan } from "../src/models/reference/extractive_qa.ts";
import { chooseFault, FAULT_KINDS, parseFaultSpec } from "../src/models/reference/faults.ts";
import { referenceNouls } from "../src/models/reference/server.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();

const READ_FILE: ToolDefinition = {
  type: "function",
  function: { name: "read_file", description: "Read a file", parameters: { type: "object" } },
};

function readCall(id: string, path: string): ChatMessage {
  return {
    role: "assistant",
    content: null,
    tool_calls: [{
      id,
      type: "function",
      function: { name: "read_file", arguments: JSON.stringify({ path }) },
    }],
  };
}

const TASK = [
  "Answer the question using the files.",
  "- workspace/Scott_Derrickson.txt",
  "- workspace/Ed_Wood.txt",
  "Question: Were Scott Derrickson and Ed Wood of the same nationality?",
].join("\n");

const hotpotTrajectory: ChatMessage[] = [
  { role: "system", content: "You are a careful research agent." },
  { role: "user", content: TASK },
  readCall("c1", "workspace/Scott_Derrickson.txt"),
  {
    role: "tool",
    tool_call_id: "c1",
    content: "# Scott Derrickson\n1|Scott Derrickson (born July 16, 1966) is an American director.\n" +
      "2|He lives in Los Angeles, California.",
  },
  readCall("c2", "workspace/Ed_Wood.txt"),
  {
    role: "tool",
    tool_call_id: "c2",
    content: "1|Edward Davis Wood Jr. was an American filmmaker and actor.\n2|He made low-budget films.",
  },
];

Deno.test("BM25 scores relevant documents higher and never negative", () => {
  const scores = bm25Scores("green grass", ["the sky is blue", "grass is green", "green paint"]);
  assert.equal(scores[0], 0);
  assert.ok(scores[1] > scores[2] && scores[2] > 0);
  assert.deepEqual(rankByRelevance("green grass", ["the sky is blue", "grass is green", "green paint"]), [
    1,
    2,
    0,
  ]);
  assert.deepEqual(rankByRelevance("nothing matches", ["a", "b"]), [0, 1], "ties keep document order");
});

Deno.test("systemone nouls are relevance squashed into [0, 1], zero for unrelated questions", () => {
  const nouls = referenceNouls("deploy token rotation", ["deploy token rotated", "lunch menu", "token"]);
  assert.equal(nouls.length, 3);
  assert.ok(nouls.every((p) => p >= 0 && p <= 1 && Number.isFinite(p)));
  assert.equal(nouls[1], 0);
  assert.ok(nouls[0] > nouls[2]);
  assert.deepEqual(
    referenceNouls("deploy token rotation", ["deploy token rotated", "lunch menu", "token"]),
    nouls,
  );
});

Deno.test("context parser gives workspace lines 0-based sentence ids under their header or file title", () => {
  assert.deepEqual(parseContextSentences("# Ed Wood\n1|First.\n2|Second.\nplain prose. More prose."), [
    { text: "First.", title: "Ed Wood", sentenceId: 0 },
    { text: "Second.", title: "Ed Wood", sentenceId: 1 },
    { text: "plain prose." },
    { text: "More prose." },
  ]);
  assert.deepEqual(parseContextSentences("     3|Third line.", "Fallback Title"), [
    { text: "Third line.", title: "Fallback Title", sentenceId: 2 },
  ]);
  assert.deepEqual(parseContextSentences("[Ed Wood, 4] Cited sentence."), [
    { text: "Cited sentence.", title: "Ed Wood", sentenceId: 4 },
  ]);
  assert.equal(titleFromHeader("workspace/Scott_Derrickson.txt"), "Scott Derrickson");
  assert.equal(titleFromHeader("Title: Ed Wood"), "Ed Wood");
});

Deno.test("question finder prefers a Question: line, then the last line with a question mark", () => {
  assert.equal(findQuestion(hotpotTrajectory), "Were Scott Derrickson and Ed Wood of the same nationality?");
  assert.equal(
    findQuestion([{
      role: "user",
      content: "Context above.\nWhat is the deploy token for shard 7?\nBe brief.",
    }]),
    "What is the deploy token for shard 7?",
  );
});

Deno.test("rule a: the agent reads each listed file once, in order, then answers", () => {
  assert.deepEqual(listedPaths(hotpotTrajectory), [
    "workspace/Scott_Derrickson.txt",
    "workspace/Ed_Wood.txt",
  ]);
  const first = referenceReply({ messages: hotpotTrajectory.slice(0, 2), tools: [READ_FILE] }, counter);
  assert.equal(first.finish_reason, "tool_calls");
  assert.equal(first.tool_calls?.[0].function.arguments, '{"path":"workspace/Scott_Derrickson.txt"}');
  const second = referenceReply({ messages: hotpotTrajectory.slice(0, 4), tools: [READ_FILE] }, counter);
  assert.equal(second.tool_calls?.[0].function.arguments, '{"path":"workspace/Ed_Wood.txt"}');
  const done = referenceReply({ messages: hotpotTrajectory, tools: [READ_FILE] }, counter);
  assert.equal(done.tool_calls, undefined);
  assert.equal(done.finish_reason, "stop");
  const noTool = referenceReply({ messages: hotpotTrajectory.slice(0, 2) }, counter);
  assert.equal(noTool.tool_calls, undefined, "without a read_file tool nothing is read");
});

Deno.test("rule b: a JSON answer cites two workspace sentences and answers a comparison yes/no", () => {
  const messages: ChatMessage[] = [
    ...hotpotTrajectory,
    { role: "user", content: 'Reply with JSON {"answer": ..., "supporting_facts": [[title, id], ...]}.' },
  ];
  const reply = referenceReply({ messages }, counter);
  assert.equal(reply.rule, "facts");
  const parsed = JSON.parse(reply.content!);
  assert.equal(parsed.answer, "yes", "both best sentences say American");
  assert.deepEqual(
    [...parsed.supporting_facts].sort(),
    [["Ed Wood", 0], ["Scott Derrickson", 0]],
  );
});

Deno.test("rule b: an open question is answered with a span of the best sentence not in the question", () => {
  const messages: ChatMessage[] = [
    {
      role: "user",
      content: "[Kiss and Tell, 0] Kiss and Tell is a 1945 comedy film starring Shirley Temple.\n" +
        "[Shirley Temple, 2] Shirley Temple served as Chief of Protocol of the United States.\n" +
        "[Other, 0] An unrelated sentence about rivers.",
    },
    {
      role: "user",
      content: "Question: What government position was held by the woman who starred in Kiss and Tell?\n" +
        'Answer in JSON with "answer" and "supporting_facts".',
    },
  ];
  const parsed = JSON.parse(referenceReply({ messages }, counter).content!);
  assert.equal(parsed.supporting_facts.length, 2);
  assert.deepEqual(parsed.supporting_facts[0], ["Kiss and Tell", 0]);
  assert.equal(typeof parsed.answer, "string");
  assert.ok(parsed.answer.length > 0);
  assert.equal(
    pickAnswerSpan("When was the film released?", "The film Kiss and Tell was released in 1945."),
    "1945",
  );
  assert.equal(pickAnswerSpan("Who directed Ed Wood?", "Ed Wood was directed by Tim Burton."), "Tim Burton");
  assert.equal(
    pickAnswerSpan("Where was Person42 born?", "Records say Person42 was born in 1914 in Springfield."),
    "Springfield",
    "a phrase that merely starts the sentence comes last",
  );
  assert.ok(isYesNoQuestion("Are both films American?"));
  assert.ok(!isYesNoQuestion("Which film came first?"));
});

Deno.test("rule c: an extractive summary keeps relevant sentences in source order within max_tokens", () => {
  const filler = Array.from({ length: 40 }, (_, i) => `Filler sentence number ${i} talks about lunch.`).join(
    " ",
  );
  const messages: ChatMessage[] = [
    { role: "user", content: "Investigate the double charges in the payment service." },
    {
      role: "assistant",
      content: `The payment service retried charges without an idempotency key. ${filler}`,
    },
    { role: "tool", content: "Double charges started after the deploy on Monday." },
    { role: "user", content: "Write a summary of the investigation so far." },
  ];
  const wanted = [
    "Investigate the double charges in the payment service.",
    "The payment service retried charges without an idempotency key.",
    "Double charges started after the deploy on Monday.",
  ];
  const budget = counter.countText(wanted.join("\n")) + 2;
  const reply = referenceReply({ messages, max_tokens: budget }, counter);
  assert.equal(reply.rule, "summary");
  assert.ok(counter.countText(reply.content!) <= budget);
  const lines = reply.content!.split("\n");
  assert.deepEqual(lines, wanted, "the relevant sentences, in source order, and nothing irrelevant");
  assert.ok(lines.includes("The payment service retried charges without an idempotency key."));
  assert.ok(lines.includes("Double charges started after the deploy on Monday."));
  assert.ok(
    lines.indexOf("The payment service retried charges without an idempotency key.") <
      lines.indexOf("Double charges started after the deploy on Monday."),
    "source order",
  );
  assert.ok(!reply.content!.includes("Write a summary"));
  const roomy = referenceReply({ messages }, counter);
  assert.ok(counter.countText(roomy.content!) <= 512);
  assert.ok(roomy.content!.length > reply.content!.length, "default budget 512 keeps more");
});

Deno.test("rule d: needle questions are answered from the best line or declined below the threshold", () => {
  const context: ChatMessage[] = [
    { role: "user", content: "Here is the log." },
    {
      role: "assistant",
      content: "NEEDLE-003: the deploy token for shard 3 is K7-ALPHA-93.\nOther chatter.",
    },
  ];
  const ask = (question: string) =>
    referenceReply({
      messages: [...context, {
        role: "user",
        content:
          `Answer from the conversation. If you cannot, reply exactly NOT IN CONTEXT.\nQuestion: ${question}`,
      }],
    }, counter).content;
  assert.equal(ask("What is the deploy token for shard 3?"), "K7-ALPHA-93");
  assert.equal(ask("What is the deploy token for shard 7?"), NOT_IN_CONTEXT);
});

Deno.test("every rule reads system messages as context, as a chat model does (an engine's digest there)", () => {
  // lean-ctx keeps the head system prompt and puts its digest in a second system message.
  const window: ChatMessage[] = [
    { role: "system", content: "You are a helpful assistant." },
    {
      role: "system",
      content: "## Digest of 180 earlier messages\nNEEDLE-004: the vault code for shard 4 is Q9-DELTA-11.",
    },
    { role: "user", content: "Let's continue." },
    { role: "assistant", content: "Sure, the weather is fine." },
  ];
  const ask = (messages: ChatMessage[], question: string) =>
    referenceReply({
      messages: [...messages, {
        role: "user",
        content:
          `Answer from the conversation. If you cannot, reply exactly NOT IN CONTEXT.\nQuestion: ${question}`,
      }],
    }, counter);
  const reply = ask(window, "What is the vault code for shard 4?");
  assert.equal(reply.rule, "needle");
  assert.equal(reply.content, "Q9-DELTA-11");
  // The same window without the digest message declines: the answer came from the system message.
  assert.equal(
    ask(window.filter((_, i) => i !== 1), "What is the vault code for shard 4?").content,
    NOT_IN_CONTEXT,
  );
  // A window of system messages alone is read too.
  assert.equal(ask(window.slice(0, 2), "What is the vault code for shard 4?").content, "Q9-DELTA-11");
  // Rule f reads them as well.
  const relevant = referenceReply({
    messages: [...window, { role: "user", content: "Which vault code does shard 4 use?" }],
  }, counter);
  assert.equal(relevant.rule, "relevant");
  assert.ok(relevant.content!.includes("Q9-DELTA-11"), relevant.content!);
});

Deno.test("rule c: the summarizer's own leading system prompt is an instruction, not evidence; later system messages are", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "You compress the payment investigation and keep every charge fact." },
    { role: "user", content: "Investigate the double charges in the payment service." },
    { role: "system", content: "Digest: double charges began after the payment deploy on Monday." },
    { role: "tool", content: "The payment service retried charges without an idempotency key." },
    ...Array.from({ length: 12 }, (_, i) => ({
      role: "assistant" as const,
      content: `Filler remark number ${i} is about the lunch menu today.`,
    })),
    { role: "user", content: "Write a summary of the investigation so far." },
  ];
  const reply = referenceReply({ messages }, counter);
  assert.equal(reply.rule, "summary");
  assert.ok(!reply.content!.includes("You compress"), reply.content!);
  assert.ok(reply.content!.includes("Digest: double charges began after the payment deploy on Monday."));
});

Deno.test("rule e: code requests quote relevant lines and return every js block verbatim, most relevant first", () => {
  const block1 = "```js\nfunction retryCharge(id) {\n  return charge(id, { idempotencyKey: id });\n}\n```";
  const block2 = "```js\nconsole.log('unrelated logging helper');\n```";
  const messages: ChatMessage[] = [
    { role: "user", content: "Investigate double charges." },
    {
      role: "tool",
      content:
        `Team pattern for retries:\n${block2}\nThe charge retry must reuse the idempotency key.\n${block1}`,
    },
    {
      role: "user",
      content: "Write the repair as a JavaScript function for the charge retry idempotency key.",
    },
  ];
  const reply = referenceReply({ messages }, counter);
  assert.equal(reply.rule, "code");
  assert.ok(reply.content!.startsWith("> "));
  const first = reply.content!.indexOf(block1);
  const second = reply.content!.indexOf(block2);
  assert.ok(first > 0 && second > first, "both blocks verbatim, the relevant one first");
});

Deno.test("rule f: other requests get the most relevant context sentences", () => {
  const messages: ChatMessage[] = [
    {
      role: "user",
      content: "Context: The cache expires hourly. The database is Postgres. Lunch is at noon.",
    },
    { role: "assistant", content: "Noted." },
    { role: "user", content: "Which database is used?" },
  ];
  const reply = referenceReply({ messages }, counter);
  assert.equal(reply.rule, "relevant");
  assert.ok(reply.content!.startsWith("The database is Postgres."));
});

Deno.test("replies longer than max_tokens are cut to fit and marked as length-limited", () => {
  const text = "word ".repeat(200);
  const fitted = fitToTokens(text, counter, 10);
  assert.ok(counter.countText(fitted) <= 10);
  assert.ok(counter.countText(text.slice(0, fitted.length + 1)) > 10, "longest prefix");
  const reply = referenceReply({
    messages: [{ role: "user", content: `${text}. What words?` }],
    max_tokens: 5,
  }, counter);
  assert.equal(reply.finish_reason, "length");
  assert.ok(counter.countText(reply.content!) <= 5);
});

Deno.test("fault specs parse with clear errors and choose faults deterministically", () => {
  const spec = parseFaultSpec(
    "429=0.1,500=0.1,hang=0.05,drop=0.05,malformed=0.05,truncated=0.05,schema=0.05",
  );
  assert.equal(spec.rates["429"], 0.1);
  assert.throws(() => parseFaultSpec("teapot=0.1"), /unknown fault kind "teapot"/);
  assert.throws(() => parseFaultSpec("500=1.5"), /500: a rate must be at most 1/);
  assert.throws(() => parseFaultSpec("500=0.6,429=0.6"), /add up to more than 1/);
  assert.throws(() => parseFaultSpec("500=lots"), /rate of 500 is not a number/);
  const always = parseFaultSpec("drop=1,first=1");
  assert.equal(chooseFault(always, 1, "abc", 0), "drop");
  assert.equal(chooseFault(always, 1, "abc", 1), undefined, "first=1 spares later attempts");
  const choices = Array.from({ length: 400 }, (_, i) => chooseFault(spec, 7, `body${i}`, 0));
  assert.deepEqual(choices, Array.from({ length: 400 }, (_, i) => chooseFault(spec, 7, `body${i}`, 0)));
  const hits = choices.filter((kind) => kind !== undefined).length;
  assert.ok(hits > 120 && hits < 260, `about 45% of 400 fault, got ${hits}`);
  for (const kind of FAULT_KINDS) assert.ok(choices.includes(kind), `${kind} occurs`);
});
