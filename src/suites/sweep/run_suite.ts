/**
 * `sweep run` over the run store. Per generation a `sweep-summary` node (chat model) and a `sweep-rank` node
 * (decision model) freeze S and the ranking; neither sees the follow-up or the gold. Pure `sweep-context`
 * nodes render full, S and S + Top N; an over-budget context is recorded and scored zero, never shrunk.
 * `sweep-answer` nodes (always afresh) ask the follow-up; `sweep-score` nodes run the ten fact checks and the
 * six sandboxed repair checks (identical answers are scored once, by key).
 *
 * @module
 */
import { summarizeWithin } from "../../methods/summarize.ts";
import type { ChatMessage } from "../../models/messages.ts";
import { countPrompt } from "../../tokens/budget.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { answerStage, CheckOnlyComparison, type CheckOnlyReport } from "../answer_stage.ts";
import { rankOutcome } from "../rank_outcome.ts";
import { contextKinds, fullSweepContext, renderedUnits, summarySweepContext, sweepTask } from "./contexts.ts";
import { checkFacts, factScore } from "./facts.ts";
import type { SweepFixture } from "./fixture.ts";
import { runRepairChecks } from "./repair_checks.ts";

/** The protocol knobs of a sweep run. */
export interface SweepRunOptions {
  compressions: number;
  topN: number[];
  inputCap: number;
  summaryAllowance: number;
  reserve: number;
  answers: number;
  summaryRetries: number;
  answerMaxTokens: number;
  /** Appended to the labels of ceiling-dependent nodes of non-Full kinds (a ceiling sweep's ` cap=N`). */
  labelTag?: string;
}

/** Defaults from the protocol. */
export const DEFAULT_SWEEP_RUN: SweepRunOptions = {
  compressions: 5,
  topN: [1, 2, 3, 4, 5],
  inputCap: 3800,
  summaryAllowance: 3200,
  reserve: 64,
  answers: 3,
  summaryRetries: 3,
  answerMaxTokens: 1536,
};

/** One answer's row in results.json. */
export interface SweepResultRow {
  kind: string;
  generation: number;
  answer_index: number;
  status: "ok" | "invalid";
  reason: string | null;
  context_tokens: number | null;
  within_cap: boolean | null;
  input_tokens: number | null;
  fact_score: number;
  facts: { name: string; passed: boolean }[];
  repair_all_passed: boolean;
  repair: { name: string; passed: boolean; detail: string }[];
  answer_text: string | null;
  /** Hash of the context (answer input) blob, null when none was built. */
  context_hash: string | null;
}

/** What the sweep run returns. */
export interface SweepRunOutcome {
  rows: SweepResultRow[];
  compressionUsage: { calls: number; input_tokens: number; output_tokens: number };
  reusedCompression: number;
  checkOnly: CheckOnlyReport | null;
}

interface Score {
  facts: { name: string; passed: boolean }[];
  fact_score: number;
  repair: { name: string; passed: boolean; detail: string }[];
  all_passed: boolean;
}

/** Runs the sweep. */
export async function runSweep(
  context: RunContext,
  fixture: SweepFixture,
  options: SweepRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
): Promise<SweepRunOutcome> {
  const { executor, run, progress } = context;
  const trajectoryHash = run.header.sources["trajectory"];
  const kinds = contextKinds(options.topN);
  const units = renderedUnits(fixture.trajectory, fixture.units);
  const task = sweepTask(fixture.trajectory);
  const G = options.compressions;
  const summaryLimit = options.summaryAllowance - options.reserve;
  const capLimit = options.inputCap - options.reserve;
  const tag = (kind: string) => (kind === "full" ? "" : options.labelTag ?? "");
  const common = { reserve: options.reserve, tokenizer: counter.hash, fixture: fixture.hash };
  progress.plan("sweep-trajectory", 1);
  progress.plan("sweep-summary", G);
  progress.plan("sweep-rank", G);
  progress.plan("sweep-context", G * kinds.length);
  progress.plan("sweep-answer", G * kinds.length * options.answers);
  progress.plan("sweep-score", G * kinds.length * options.answers);
  const usage = { calls: 0, input_tokens: 0, output_tokens: 0 };
  let reusedCompression = 0;
  const check = new CheckOnlyComparison();

  // The trajectory as a stage, so every later node descends from it in the DAG.
  const trajectoryNode = await executor.execute(
    {
      stage: "sweep-trajectory",
      version: 1,
      label: "trajectory",
      params: { fixture: fixture.hash },
      inputs: { file: trajectoryHash },
    },
    () =>
      Promise.resolve({
        outputs: { units: units.map((u) => ({ id: u.id, position: u.position, text: u.text })) },
      }),
  );
  const unitsHash = trajectoryNode.node.outputs.units;

  // 1. Freeze S and the ranking of every generation before any answer.
  const frozen = await Promise.all(Array.from({ length: G }, async (_, gen) => {
    const [summaryNode, rankNode] = await Promise.all([
      executor.execute(
        {
          stage: "sweep-summary",
          version: 1,
          label: `summary gen=${gen}`,
          params: {
            generation: gen,
            allowance: options.summaryAllowance,
            ...common,
            chat_model: models.description.chat_model,
            max_retries: options.summaryRetries,
          },
          inputs: { units: unitsHash },
          provider: true,
          outputNames: ["summary"],
        },
        async () => {
          const build = (summary: string) =>
            summarySweepContext(fixture.trajectory, summary, [], fixture.followUp);
          const outcome = await summarizeWithin({
            chat: models.chat,
            task,
            evidence: units.map((u) => u.text).join("\n\n"),
            space: summaryLimit - countPrompt(counter, build("")),
            promptTokens: (summary) => countPrompt(counter, build(summary)),
            limit: summaryLimit,
            maxRetries: options.summaryRetries,
          });
          if (!outcome.ok) {
            return {
              outputs: { summary: { ok: false, text: outcome.summary ?? null, reason: outcome.reason } },
              requests: outcome.records,
              status: "invalid" as const,
              reason: outcome.reason,
            };
          }
          return {
            outputs: { summary: { ok: true, text: outcome.summary, attempts: outcome.attempts } },
            requests: outcome.records,
          };
        },
      ),
      executor.execute(
        {
          stage: "sweep-rank",
          version: 1,
          label: `rank gen=${gen}`,
          params: {
            generation: gen,
            fixture: fixture.hash,
            decision_model: models.description.decision_model,
          },
          inputs: { units: unitsHash },
          provider: true,
          outputNames: ["ranking"],
        },
        () => rankOutcome(models.decision, units, task),
      ),
    ]);
    for (const node of [summaryNode, rankNode]) {
      if (node.node.reused_from !== undefined) {
        reusedCompression++;
        continue; // its calls were made, and are counted, by the frozen run
      }
      usage.calls += node.node.usage.calls;
      usage.input_tokens += node.node.usage.input_tokens;
      usage.output_tokens += node.node.usage.output_tokens;
    }
    return { summaryNode, rankNode };
  }));

  // 2. Contexts, answers, scores.
  const rows: SweepResultRow[] = [];
  await Promise.all(frozen.map(async ({ summaryNode, rankNode }, gen) => {
    const summary = (summaryNode.outputs.summary ??
      { ok: false, text: null, reason: summaryNode.node.reason }) as {
        ok: boolean;
        text: string | null;
        reason?: string;
      };
    const ranking = (rankNode.outputs.ranking ??
      { ok: false, order: [], error: rankNode.node.reason }) as {
        ok: boolean;
        order: string[];
        error?: string;
      };
    await Promise.all(kinds.map(async (kind) => {
      const n = kind.startsWith("S+Top") ? Number(kind.slice(5)) : 0;
      const inputs: Record<string, string> = { units: unitsHash };
      if (kind !== "full") inputs.summary = summaryNode.node.outputs.summary;
      if (n > 0) inputs.ranking = rankNode.node.outputs.ranking;
      const contextNode = await executor.execute(
        {
          stage: "sweep-context",
          version: 1,
          label: `context kind=${kind}${kind === "full" ? "" : ` gen=${gen}`}${tag(kind)}`,
          params: { kind, top_n: n, input_cap: options.inputCap, ...common },
          inputs,
        },
        () => {
          const fail = (reason: string) =>
            Promise.resolve({ outputs: { messages: null, info: null }, status: "invalid" as const, reason });
          let messages: ChatMessage[];
          let kept: string[] = [];
          if (kind === "full") messages = fullSweepContext(fixture.trajectory, fixture.followUp);
          else {
            if (!summary.ok || summary.text === null) return fail(`summary invalid: ${summary.reason}`);
            if (n > 0 && !ranking.ok) return fail(`ranking failed: ${ranking.error}`);
            kept = n > 0 ? ranking.order.slice(0, n) : [];
            const keptUnits = units.filter((u) => kept.includes(u.id));
            messages = summarySweepContext(fixture.trajectory, summary.text, keptUnits, fixture.followUp);
          }
          const tokens = countPrompt(counter, messages);
          const info = { tokens, within_cap: tokens <= capLimit, kept };
          if (kind !== "full" && tokens > capLimit) {
            return Promise.resolve({
              outputs: { messages, info },
              status: "invalid" as const,
              reason: `over budget: ${tokens} tokens > ${capLimit} (recorded, never shrunk)`,
            });
          }
          return Promise.resolve({ outputs: { messages, info } });
        },
      );
      const info = contextNode.outputs.info as { tokens: number; within_cap: boolean } | null;
      const contextHash = contextNode.node.outputs.messages;
      await Promise.all(Array.from({ length: options.answers }, async (_, a) => {
        const label = `answer kind=${kind} gen=${gen} ans=${a}${tag(kind)}`;
        const { node: answerNode, answer, valid } = await answerStage(executor, {
          stage: "sweep-answer",
          label,
          params: { kind, generation: gen, answer_index: a, chat_model: models.description.chat_model },
          context: contextNode,
          chat: models.chat,
          maxTokens: options.answerMaxTokens,
          inputCap: kind === "full" ? null : options.inputCap,
        });
        check.record(executor, label, contextHash);
        const scoreNode = await executor.execute(
          {
            stage: "sweep-score",
            version: 1,
            label: `score kind=${kind} gen=${gen} ans=${a}${tag(kind)}`,
            params: { fixture: fixture.hash, valid },
            inputs: { answer: answerNode.node.outputs.answer },
          },
          async () => {
            const text = valid ? answer!.content : "";
            const facts = checkFacts(text, fixture.facts);
            const repair = valid
              ? await runRepairChecks(text, fixture.repair)
              : { checks: [], all_passed: false };
            const score: Score = {
              facts: facts.map((f) => ({ name: f.fact.name, passed: f.passed })),
              fact_score: valid ? factScore(facts) : 0,
              repair: repair.checks,
              all_passed: repair.all_passed,
            };
            return { outputs: { score } };
          },
        );
        const score = scoreNode.outputs.score as Score;
        rows.push({
          kind,
          generation: gen,
          answer_index: a,
          status: valid ? "ok" : "invalid",
          reason: valid ? null : answerNode.node.reason ?? null,
          context_tokens: info?.tokens ?? null,
          within_cap: info?.within_cap ?? null,
          input_tokens: answer?.usage.prompt_tokens ?? null,
          fact_score: valid ? score.fact_score : 0,
          facts: score.facts,
          repair_all_passed: valid && score.all_passed,
          repair: score.repair,
          answer_text: answer?.content ?? null,
          context_hash: contextHash ?? null,
        });
      }));
    }));
  }));
  const order = new Map(kinds.map((k, i) => [k, i]));
  rows.sort((a, b) =>
    order.get(a.kind)! - order.get(b.kind)! || a.generation - b.generation || a.answer_index - b.answer_index
  );
  return { rows, compressionUsage: usage, reusedCompression, checkOnly: check.report(executor) };
}
