/**
 * `sweep-score`: the strict fact checks (an answer passes a fact when it holds its exact text, whitespace runs
 * folded) and the sandboxed repair checks of one answer (each distinct answer once, by key). `sweep-aggregate`: every answer row of the sweep (from its answer, status, score and context blobs) into
 * `results.json`, averaged per context kind into `aggregate.json` (an invalid context counts zero). And
 * `sweep-ceilings`: a ceiling sweep's rows and aggregates over the per-ceiling aggregates (`answer_pipeline.ts`).
 *
 * @module
 */
import { AnsweringModelsSchema } from "../../../core/answering_models.ts";
import { z } from "zod";
import { answerRows, defineCeilingsStage, StoredAnswerSchema } from "../../answer_pipeline.ts";
import { defineStage } from "../../../pipeline/stage.ts";
import { runCaseRepairChecks } from "../case_checks.ts";
import { checkSweepEnv, type SweepStageEnv } from "./compress.ts";
import { publishedJson } from "../../published.ts";
import { aggregateSweep, type SweepResultRow } from "../aggregate.ts";
import { contextKinds } from "../contexts.ts";
import { SweepContextInfoSchema } from "./context.ts";
import { type Fact, foldWhitespace } from "../case_format.ts";

const Check = z.object({ name: z.string(), passed: z.boolean() });

/** A sweep score node's `score` output. */
export const SweepScoreSchema = z.object({
  node: z.string(),
  facts: z.array(Check),
  fact_score: z.number(),
  repair: z.array(Check.extend({ detail: z.string() })),
  all_passed: z.boolean(),
});

/** The `sweep-score` stage. */
export const sweepScoreStage = defineStage({
  name: "sweep-score",
  version: 2,
  doc: "Ten exact fact checks and six sandboxed repair checks of one answer.",
  params: z.object({ fixture: z.string(), valid: z.boolean() }),
  inputs: ["answer"],
  outputs: { score: { schema: SweepScoreSchema, doc: "fact checks, fact score, repair checks" } },
  provider: false,
  async run({ params, inputs, key, env }: {
    params: { fixture: string; valid: boolean };
    inputs: Record<string, unknown>;
    key: string;
    env: SweepStageEnv;
  }) {
    checkSweepEnv(env, params);
    const answer = StoredAnswerSchema.nullable().parse(inputs.answer);
    const valid = params.valid && answer !== null;
    const text = valid ? answer!.content : "";
    const facts = checkFacts(text, env.fixture.facts);
    const repair = valid ? await runCaseRepairChecks(text, env.fixture) : { checks: [], all_passed: false };
    return {
      outputs: {
        score: {
          node: key,
          facts: facts.map((f) => ({ name: f.fact.name, passed: f.passed })),
          fact_score: valid ? factScore(facts) : 0,
          repair: repair.checks,
          all_passed: repair.all_passed,
        },
      },
    };
  },
});

/** The `sweep-aggregate` stage. */
export const sweepAggregateStage = defineStage({
  name: "sweep-aggregate",
  version: 2, // 2: each kind's aggregate names the models that answered its calls, per role
  doc: "Every answer row (results.json) and the per-kind aggregate (aggregate.json) of a sweep run.",
  params: z.object({
    top_n: z.array(z.number().int()),
    methods: z.array(z.string()).optional(), // the methods after full, S and S+TopN
    answering_models: z.record(z.string(), AnsweringModelsSchema),
  }),
  inputs: ["status:*", "answer:*", "score:*", "info:*"],
  outputs: {
    "results.json": { schema: z.string(), kind: "text", doc: "every answer row, published as results.json" },
    "aggregate.json": {
      schema: z.string(),
      kind: "text",
      doc: "per-kind means, published as aggregate.json",
    },
  },
  provider: false,
  run({ params, inputs }) {
    const kinds = [...contextKinds(params.top_n), ...(params.methods ?? [])];
    const schemas = { score: SweepScoreSchema, info: SweepContextInfoSchema };
    const rows: SweepResultRow[] = answerRows(inputs, schemas, { field: "kind", methods: kinds }, (r) => ({
      kind: r.params.kind,
      generation: r.params.generation,
      answer_index: r.params.answer_index,
      status: r.valid ? "ok" : "invalid",
      reason: r.valid ? null : r.status.reason,
      context_tokens: r.info.tokens,
      within_cap: r.info.within_cap,
      input_tokens: r.answer?.usage.prompt_tokens ?? null,
      fact_score: r.valid ? r.score.fact_score : 0,
      facts: r.score.facts,
      repair_all_passed: r.valid && r.score.all_passed,
      repair: r.score.repair,
      answer_text: r.answer?.content ?? null,
    }));
    return Promise.resolve({
      outputs: {
        "results.json": publishedJson(rows),
        "aggregate.json": publishedJson(aggregateSweep(rows, kinds, params.answering_models)),
      },
    });
  },
});

/** The `sweep-ceilings` stage. */
export const sweepCeilingsStage = defineCeilingsStage({
  name: "sweep-ceilings",
  doc:
    "A sweep ceiling sweep's results.json and aggregate.json: every ceiling's rows and aggregates, each with " +
    "its input_cap (Full, which no ceiling limits, once with null).",
  field: "kind",
  aggregateDoc: "per-kind (and per-ceiling) means, published as aggregate.json",
});

/** The outcome of one fact check. */
export interface FactCheck {
  fact: Fact;
  passed: boolean;
}

/** Checks every fact against `answer`: exact, case-sensitive substring after whitespace folding. */
export function checkFacts(answer: string, facts: readonly Fact[]): FactCheck[] {
  const folded = foldWhitespace(answer);
  return facts.map((fact) => ({ fact, passed: folded.includes(foldWhitespace(fact.text)) }));
}

/** The fact score of one answer: the share of facts passed (0 when there are no checks). */
export function factScore(checks: readonly FactCheck[]): number {
  if (checks.length === 0) return 0;
  return checks.filter((check) => check.passed).length / checks.length;
}
