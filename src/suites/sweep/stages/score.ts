/**
 * `sweep-score`: the fact checks and the sandboxed repair checks of one answer (each distinct answer once, by key).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import { StoredAnswerSchema } from "../../answer_stage.ts";
import { checkFacts, factScore } from "../facts.ts";
import { runCaseRepairChecks } from "../case_checks.ts";
import { checkSweepEnv, type SweepStageEnv } from "./trajectory.ts";

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
