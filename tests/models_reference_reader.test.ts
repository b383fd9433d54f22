import assert from "node:assert/strict";
import type { ChatMessage } from "../src/models/messages.ts";
import { referenceReply } from "../src/models/reference/chat.ts";
import { answerBridge, answerType } from "../src/models/reference/bridge.ts";
import { answerComparison, parseComparison } from "../src/models/reference/comparison.ts";
import { parseContextSentences } from "../src/models/reference/context.ts";
import { answerWithFacts } from "../src/models/reference/extractive_qa.ts";
import { questionEntities, sentencesAbout } from "../src/models/reference/spans.ts";
import { stem } from "../src/models/reference/text.ts";
import { evaluationQuestion } from "../src/suites/hotpot/run/methods.ts";
import { testCounter } from "./models_support.ts";

const counter = await testCounter();

/** Articles as a read_file result shows them: a `# Title` header, then `N|sentence` lines (N = id + 1). */
function articles(articles: Record<string, string[]>): string {
  return Object.entries(articles).map(([title, sentences]) =>
    `# ${title}\n${sentences.map((sentence, index) => `${index + 1}|${sentence}`).join("\n")}`
  ).join("\n\n");
}

const LIBRARY: Record<string, string[]> = {
  "Orvane Glassworks": [
    "Orvane Glassworks is a glass manufacturer.",
    "Its headquarters moved to a converted mill in 1951.",
    "Orvane Glassworks was founded by Teodor Malkin in 1965.",
    "Labour relations at Orvane Glassworks have been calm since a long strike in 1928.",
    "The company employs roughly 4400 people.",
  ],
  "Brisk Motors": [
    "Brisk Motors is a bicycle maker.",
    "The company is headquartered in Calderport.",
    "Brisk Motors was founded by Ilse Varga in 1953.",
    "Its logo was redesigned in 2007.",
  ],
  "Teodor Malkin": [
    "Teodor Malkin (born 1931) is an engineer from the Vessa region.",
    "Malkin was born in the city of Harrowgate and grew up there.",
    "Malkin speaks 3 languages.",
  ],
  "Harrowgate": [
    "Harrowgate is a city in the Vessa region.",
    "The railway reached Harrowgate in 1889.",
    "Harrowgate was founded in 1207.",
    "Harrowgate lies on the banks of the Tamsel River.",
  ],
  "Tamsel River": [
    "The Tamsel River is a river in the Vessa region.",
    "A canal built in 1927 links the Tamsel River with the sea.",
    "The Tamsel River is 1,380 kilometres long.",
  ],
  "Dorn River": [
    "The Dorn River is a river in the Ulm region.",
    "The Dorn River is 969 kilometres long.",
    "Its drainage basin covers about 89850 square kilometres.",
  ],
  "The Night Herons": [
    "The Night Herons are a folk band.",
    "A tribute album appeared in 1948.",
    "The Night Herons were formed in Harrowgate in 1975.",
  ],
  "The Glass Owls": [
    "The Glass Owls are a jazz band.",
    "The Glass Owls were formed in Calderport in 1968.",
    "The band has played more than 1300 concerts.",
  ],
  "Mira Holt": [
    "Mira Holt (born 1941) is a chemist from the Ulm region.",
    "Holt was born in the city of Calderport.",
  ],
  "Ansel Drey": [
    "Ansel Drey (born 1919) is a painter from the Vessa region.",
    "Drey studied chemistry for one year before turning to painting.",
  ],
};

const TASK = "Answer the question using the files in the workspace.";

function request(question: string, library: Record<string, string[]> = LIBRARY): ChatMessage[] {
  return [
    { role: "system", content: "You are a careful research assistant." },
    { role: "user", content: TASK },
    { role: "user", content: articles(library) },
    { role: "user", content: evaluationQuestion(question) },
  ];
}

function ask(question: string, library?: Record<string, string[]>) {
  return answerWithFacts(request(question, library));
}

Deno.test("stemming joins founder/founded, longer/long and headquarters/headquartered", () => {
  assert.equal(stem("founder"), stem("founded"));
  assert.equal(stem("founding"), "found");
  assert.equal(stem("longer"), stem("long"));
  assert.equal(stem("headquarters"), stem("headquartered"));
  assert.equal(stem("bigger"), "big");
  assert.equal(stem("cities"), "city");
  assert.equal(stem("1965"), "1965", "numbers stay as they are");
});

Deno.test("question entities skip the capitalized opener and keep names with connectors", () => {
  assert.deepEqual(questionEntities("Were The Night Herons formed before The Glass Owls?"), [
    "The Night Herons",
    "The Glass Owls",
  ]);
  assert.deepEqual(questionEntities("In which city was the founder of Brisk Motors born?"), ["Brisk Motors"]);
  assert.deepEqual(questionEntities("Who starred in Kiss and Tell?"), ["Kiss and Tell"]);
});

Deno.test("sentences about a name use title and text, or the name's rarest word when none has all", () => {
  const sentences = parseContextSentences(articles(LIBRARY));
  const about = sentencesAbout(sentences, "Teodor Malkin");
  assert.ok(about.some((sentence) => sentence.text === "Malkin speaks 3 languages."), "by title");
  assert.ok(
    about.some((sentence) => sentence.text.startsWith("Orvane Glassworks was founded by Teodor Malkin")),
    "by text",
  );
  const prose = parseContextSentences("Malkin was born in Harrowgate. Varga was born in Calderport.");
  assert.deepEqual(sentencesAbout(prose, "Teodor Malkin").map((sentence) => sentence.text), [
    "Malkin was born in Harrowgate.",
  ]);
});

Deno.test("a 'first' comparison picks the earlier founding year, not other years, and cites both sentences", () => {
  const result = ask("Which company was founded first, Orvane Glassworks or Brisk Motors?");
  assert.equal(result.answer, "Brisk Motors", "1953 < 1965 (the 1928 and 1951 years are not foundings)");
  assert.deepEqual(result.supporting_facts, [["Orvane Glassworks", 2], ["Brisk Motors", 2]]);
  assert.equal(
    ask("Which company was founded later, Orvane Glassworks or Brisk Motors?").answer,
    "Orvane Glassworks",
    "'later' reverses the direction",
  );
});

Deno.test("a quantity comparison lets the larger number win 'longer' and the smaller win 'shorter'", () => {
  const longer = ask("Which river is longer, the Dorn River or the Tamsel River?");
  assert.equal(longer.answer, "the Tamsel River", "1,380 km > 969 km; the option exactly as written");
  assert.deepEqual(longer.supporting_facts, [["Dorn River", 1], ["Tamsel River", 2]]);
  assert.equal(ask("Which river is shorter, the Dorn River or the Tamsel River?").answer, "the Dorn River");
});

Deno.test("yes/no comparisons answer yes when the first name wins and no when it loses", () => {
  const before = ask("Were The Glass Owls formed before The Night Herons?");
  assert.equal(before.answer, "yes", "1968 < 1975; the 1948 tribute album is not a formation");
  assert.deepEqual(before.supporting_facts, [["The Glass Owls", 1], ["The Night Herons", 2]]);
  assert.equal(ask("Were The Night Herons formed before The Glass Owls?").answer, "no");
  assert.equal(ask("Were The Night Herons formed after The Glass Owls?").answer, "yes");
  assert.equal(ask("Is the Dorn River longer than the Tamsel River?").answer, "no");
});

Deno.test("'older' compares birth years, and flips for ages", () => {
  assert.equal(ask("Who is older, Mira Holt or Ansel Drey?").answer, "Ansel Drey", "born 1919 < 1941");
  const ages = { "Ada Quill": ["Ada Quill is 45 years old."], "Bo Renn": ["Bo Renn is 62 years old."] };
  assert.equal(ask("Who is older, Ada Quill or Bo Renn?", ages).answer, "Bo Renn", "62 > 45 years of age");
});

Deno.test("'both' questions need every attribute word in each side's best sentence", () => {
  const no = ask("Are Mira Holt and Ansel Drey both chemists?");
  assert.equal(no.answer, "no", "Drey is a painter; 'chemistry' is not 'chemist'");
  assert.deepEqual(no.supporting_facts, [["Mira Holt", 0], ["Ansel Drey", 0]]);
  const library = {
    ...LIBRARY,
    "Ansel Drey": ["Ansel Drey (born 1919) is a chemist from the Vessa region."],
  };
  assert.equal(ask("Are Mira Holt and Ansel Drey both chemists?", library).answer, "yes");
});

Deno.test("a comparison with one side missing from the context is left to the fallback", () => {
  const sentences = parseContextSentences(articles(LIBRARY));
  assert.equal(
    answerComparison("Which company was founded first, Orvane Glassworks or Zeta Labs?", sentences),
    undefined,
  );
  assert.equal(parseComparison("Which film came first?"), undefined, "no A-or-B options");
  assert.equal(
    parseComparison("Which river is in Ulm, the Dorn River or the Tamsel River?"),
    undefined,
    "no direction",
  );
});

Deno.test("bridge questions take two hops: entity → bridge name → typed answer, citing both", () => {
  const birthplace = ask("In which city was the founder of Orvane Glassworks born?");
  assert.equal(birthplace.answer, "Harrowgate");
  assert.deepEqual(birthplace.supporting_facts, [["Orvane Glassworks", 2], ["Teodor Malkin", 1]]);
  const year = ask("In what year was the city where The Night Herons were formed founded?");
  assert.equal(year.answer, "1207", "the founding year, not the railway's 1889");
  assert.deepEqual(year.supporting_facts, [["The Night Herons", 2], ["Harrowgate", 2]]);
  const river = ask("Which river flows through the city where Teodor Malkin was born?");
  assert.equal(river.answer, "Tamsel River", "the name holding the type noun");
  assert.deepEqual(river.supporting_facts, [["Teodor Malkin", 1], ["Harrowgate", 3]]);
  const headquarters = ask("In which city is the company founded by Ilse Varga headquartered?");
  assert.equal(headquarters.answer, "Calderport");
  assert.deepEqual(headquarters.supporting_facts, [["Brisk Motors", 2], ["Brisk Motors", 1]]);
});

Deno.test("a question hop 1 already covers is answered from hop 1", () => {
  const result = ask("In which city was Teodor Malkin born?");
  assert.equal(result.answer, "Harrowgate", "not the Vessa region of the (born 1931) sentence");
  assert.deepEqual(result.supporting_facts, [["Teodor Malkin", 1]]);
  assert.equal(ask("In what year were The Glass Owls formed?").answer, "1968");
});

Deno.test("answer types follow the question's wording", () => {
  assert.deepEqual(answerType("In what year was X founded?"), { kind: "year", noun: "year" });
  assert.deepEqual(answerType("How many people does X employ?"), { kind: "number" });
  assert.deepEqual(answerType("Which river flows through X?"), { kind: "name", noun: "river" });
  assert.deepEqual(answerType("Who founded X?"), { kind: "name" });
});

Deno.test("a bridge whose second article is missing falls back to the naive reading", () => {
  const { Harrowgate: _dropped, ...library } = LIBRARY;
  const sentences = parseContextSentences(articles(library));
  const question = "In what year was the city where The Night Herons were formed founded?";
  assert.equal(answerBridge(question, sentences), undefined);
  const fallback = ask(question, library);
  assert.equal(fallback.supporting_facts.length, 2, "the two best BM25 sentences");
  assert.notEqual(fallback.answer, "1207");
});

Deno.test("the reader is deterministic: the same request gives the same reply", () => {
  for (
    const question of [
      "Which company was founded first, Orvane Glassworks or Brisk Motors?",
      "In which city was the founder of Orvane Glassworks born?",
      "Were Mira Holt and Ansel Drey of the same nationality?",
    ]
  ) {
    const once = referenceReply({ messages: request(question) }, counter);
    const twice = referenceReply({ messages: structuredClone(request(question)) }, counter);
    assert.equal(once.rule, "facts");
    assert.equal(once.content, twice.content);
  }
});

Deno.test("answers are extracted from the request (yes/no aside) and cite sentences that exist", () => {
  const questions = [
    "Which company was founded first, Orvane Glassworks or Brisk Motors?",
    "Which river is longer, the Dorn River or the Tamsel River?",
    "Were The Glass Owls formed before The Night Herons?",
    "Are Mira Holt and Ansel Drey both chemists?",
    "In which city was the founder of Orvane Glassworks born?",
    "In what year was the city where The Night Herons were formed founded?",
    "Which river flows through the city where Teodor Malkin was born?",
    "How many people does the company founded by Teodor Malkin employ?",
    "What instrument does the founder of Brisk Motors play?",
    "Who painted the portrait of the mayor of Zeta?",
  ];
  for (const question of questions) {
    const messages = request(question);
    const reply = JSON.parse(referenceReply({ messages }, counter).content!);
    const text = messages.map((message) => message.content ?? "").join("\n");
    assert.ok(
      reply.answer === "yes" || reply.answer === "no" || text.includes(reply.answer),
      `${question} → ${reply.answer} is in the request`,
    );
    for (const [title, id] of reply.supporting_facts) {
      assert.ok(LIBRARY[title]?.[id] !== undefined, `${question}: [${title}, ${id}] exists`);
    }
  }
});
