import assert from "node:assert/strict";
import type { ChatMessage } from "../src/models/messages.ts";
import { referenceReply } from "../src/models/reference/chat.ts";
import { parseContextSentences } from "../src/models/reference/context.ts";
import { answerWithFacts } from "../src/models/reference/extractive_qa.ts";
import {
  extractiveSummary,
  FRAMING_LINE,
  SUMMARY_RATIO,
  summaryLine,
} from "../src/models/reference/summary.ts";
import { summaryRequestMessages } from "../src/methods/summarize.ts";
import { evaluationQuestion } from "../src/suites/hotpot/run/methods.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();

const QUESTION = "In which city was the founder of Orvane Glassworks born?";

const EVIDENCE = [
  "## Orvane Glassworks",
  "     1|Orvane Glassworks is a glass manufacturer.",
  "     2|Its headquarters moved to a converted mill in 1951.",
  "     3|Orvane Glassworks was founded by Teodor Malkin in 1965.",
  "     4|The company sponsors a youth football team.",
  "",
  "## Teodor Malkin",
  "     1|Teodor Malkin (born 1931) is an engineer from the Vessa region.",
  "     2|Malkin was born in the city of Harrowgate and grew up there.",
  "     3|Malkin speaks 3 languages and often lectures abroad.",
  "     4|A portrait of Malkin hangs in a regional gallery.",
  "",
  "## Dorn River",
  ...Array.from({ length: 24 }, (_, index) => `${String(index + 1).padStart(6)}|${fillerSentence(index)}`),
].join("\n");

function fillerSentence(index: number): string {
  return `Anglers value the clear pools of the Dorn River, and permit number ${index} is sold in spring.`;
}

function summaryRequest(maxTokens: number): ChatMessage[] {
  return summaryRequestMessages({
    task: `Answer the question.\nQuestion: ${QUESTION}`,
    evidence: EVIDENCE,
    maxTokens,
  });
}

Deno.test("summary lines carry their source as [title, N] with N the sentence id of the file line", () => {
  const summary = extractiveSummary(summaryRequest(400), counter, 400);
  const lines = summary.split("\n");
  assert.ok(lines.includes("[Orvane Glassworks, 2] Orvane Glassworks was founded by Teodor Malkin in 1965."));
  assert.ok(
    lines.includes("[Teodor Malkin, 1] Malkin was born in the city of Harrowgate and grew up there."),
  );
  const task = summaryRequest(400)[1].content!;
  for (const line of lines.filter((line) => !task.includes(line))) {
    assert.match(line, /^\[[^\]]+, \d+\] \S/, "every line from the files has provenance");
  }
  assert.equal(summaryLine({ text: "Bare prose." }), "Bare prose.", "no provenance, no brackets");
  assert.equal(
    summaryLine({ text: "Cited.", title: "Ed Wood", sentenceId: 4 }),
    "[Ed Wood, 4] Cited.",
  );
});

Deno.test("a summary of a summary keeps the sentence ids it was given", () => {
  const first = extractiveSummary(summaryRequest(400), counter, 400);
  const again = extractiveSummary(
    [{ role: "user", content: first }, { role: "user", content: "Summarize the above." }],
    counter,
    400,
  );
  for (const line of again.split("\n")) assert.ok(first.split("\n").includes(line), `${line} kept as it was`);
});

Deno.test("framing lines are not evidence", () => {
  for (const line of ["<evidence>", "</task>", "Evidence the agent gathered:"]) {
    assert.ok(FRAMING_LINE.test(line));
  }
  for (const line of ["Malkin was born in Harrowgate.", "Ratio: 3:1 at noon."]) {
    assert.ok(!FRAMING_LINE.test(line), line);
  }
});

Deno.test("the summary's budget is exact: at most max_tokens and a quarter of the evidence lines", () => {
  const messages = summaryRequest(10_000);
  const evidenceLines = [messages[1], messages[2]]
    .flatMap((message) => parseContextSentences(message.content!))
    .filter((sentence) => !FRAMING_LINE.test(sentence.text))
    .map(summaryLine).join("\n");
  const quarter = Math.ceil(SUMMARY_RATIO * counter.countText(evidenceLines));
  const roomy = extractiveSummary(messages, counter, 10_000);
  assert.ok(counter.countText(roomy) <= quarter, "a quarter of the evidence when max_tokens is larger");
  assert.ok(counter.countText(roomy) > quarter * 0.8, "and close to it");
  for (const budget of [40, 64, 97]) {
    const reply = referenceReply({ messages: summaryRequest(budget), max_tokens: budget }, counter);
    assert.equal(reply.finish_reason, "stop", "never cut: the summary itself fits");
    assert.ok(counter.countText(reply.content!) <= budget, `${budget}: ${counter.countText(reply.content!)}`);
  }
});

Deno.test("an answer read from a summary can still cite the summarized sentences", () => {
  const summary = extractiveSummary(summaryRequest(120), counter, 120);
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a careful research assistant." },
    { role: "user", content: `Answer the question.\nQuestion: ${QUESTION}` },
    { role: "user", content: `Summary of the other evidence you read:\n<summary>\n${summary}\n</summary>` },
    { role: "user", content: evaluationQuestion(QUESTION) },
  ];
  const answer = answerWithFacts(messages);
  assert.equal(answer.answer, "Harrowgate");
  assert.deepEqual(answer.supporting_facts, [["Orvane Glassworks", 2], ["Teodor Malkin", 1]]);
});
