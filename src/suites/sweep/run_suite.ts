/**
 * `sweep run`: the sweep's answer task over the shared pipeline (answer_pipeline.ts). One unit, the fixture's
 * trajectory; per generation a `sweep-summary`, a `sweep-rank` and the engines' windows, frozen before any
 * answer; contexts full, S, S + Top N and the other methods; answers scored by fact and sandboxed repair checks.
 *
 * @module
 */
import type { NodeResult } from "../../pipeline/executor.ts";
import { addUsage, emptyUsage, type Usage } from "../../core/usage.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { CheckOnlyReport, RunContext } from "../run_lifecycle.ts";
import { CheckOnlyComparison } from "../answer_pipeline.ts";
import { sortedRecord } from "../published.ts";
import { contextKinds } from "./contexts.ts";
import type { SweepFixture } from "./fixture.ts";
import type { SweepResultRow } from "./aggregate.ts";
import { sweepEngineStage, sweepRankStage, sweepSummaryStage } from "./stages/compress.ts";
import { sweepTrajectoryStage } from "./stages/compress.ts";
import { engineReportParams } from "../method_selection.ts";
import type { LoopbackProxy } from "../../models/loopback_proxy.ts";
import { contextNeeds, declaredMethod } from "../../methods/registry.ts";
import { sweepAnswerStage, sweepContextStage } from "./stages/context.ts";
import { sweepAggregateStage, sweepCeilingsStage, sweepScoreStage } from "./stages/aggregate.ts";
import { sweepReportStage } from "./stages/report.ts";
import { generationInShard } from "../../pipeline/shard.ts";
import { sweepContextInputName } from "./explorer.ts";
import { DEFAULT_RESAMPLES } from "../../analysis/bootstrap.ts";
import { runCost } from "../../analysis/cost.ts";
import type { ReportAnalysisOptions } from "../../analysis/report_inputs.ts";
import { parseJson } from "../../core/json_read.ts";
import { type Inputs, publishAnswerRuns, runAnswerTask } from "../answer_pipeline.ts";

export type { SweepResultRow } from "./aggregate.ts";
export { DEFAULT_SWEEP_RUN, type SweepRunOptions } from "./run_options.ts";
import type { SweepRunOptions } from "./run_options.ts";

/** What the sweep run returns: `files` are the published files' blobs (none in check-only mode). */
export interface SweepRunOutcome {
  rows: SweepResultRow[];
  compressionUsage: Usage;
  reusedCompression: number;
  checkOnly: CheckOnlyReport | null;
  files: Record<string, string>;
}

/** Runs the sweep. */
export async function runSweep(
  context: RunContext,
  fixture: SweepFixture,
  options: SweepRunOptions,
  models: ModelSetup,
  counter: TokenCounter,
  analysis: ReportAnalysisOptions = {},
  transport: { endpoint?: LoopbackProxy } = {},
): Promise<SweepRunOutcome> {
  const { executor, run, progress } = context;
  const extra = options.methods ?? [];
  const kinds = [...contextKinds(options.topN), ...extra];
  const engines = options.engines ?? [];
  const engineNames = new Set(engines.map((e) => e.name));
  // A shard runs only its generations (g in part g mod N), keys unchanged; a merged run's replay runs every one.
  const generations = Array.from({ length: options.compressions }, (_, g) => g)
    .filter((g) => generationInShard(g, run.header.shard));
  const G = generations.length;
  const caps = options.inputCaps ?? [options.inputCap];
  const common = { reserve: options.reserve, tokenizer: counter.hash, fixture: fixture.hash };
  const env = { counter, fixture };
  const modelEnv = { ...env, chat: models.chat, decision: models.decision, endpoint: transport.endpoint };
  progress.plan(sweepTrajectoryStage.name, 1);
  progress.plan(sweepSummaryStage.name, G);
  progress.plan(sweepRankStage.name, G);
  // A deterministic engine (no model calls) is compacted and answered in the first generation only.
  const conditions = G * kinds.length -
    engines.filter((e) => e.deterministic).length * (G - (generations.includes(0) ? 1 : 0));
  if (engines.length > 0) {
    progress.plan(sweepEngineStage.name, conditions - G * (kinds.length - engines.length));
  }
  const usage = emptyUsage();
  let reusedCompression = 0;
  const check = new CheckOnlyComparison();
  // The trajectory as a stage, so every later node descends from it in the DAG.
  const trajectoryNode = await executor.runStage(sweepTrajectoryStage, {
    label: "trajectory",
    params: { fixture: fixture.hash },
    inputs: { file: run.header.sources["trajectory"] },
    values: { file: null },
  }, env);
  const unitsHash = trajectoryNode.node.outputs.units;
  const units = trajectoryNode.outputs.units;
  const unitsInput = { inputs: { units: unitsHash }, values: { units } };
  const frozenNodes: NodeResult<Record<string, unknown>>[] = [];
  const contextParts: Inputs = { inputs: {}, values: {} };
  const runs = await runAnswerTask<null, null, Frozen>(context, {
    stages: { context: sweepContextStage, answer: sweepAnswerStage, score: sweepScoreStage },
    conditions,
    caps,
    methods: kinds,
    generations,
    units: [null],
    window: 1,
    answers: options.answers,
    answerMaxTokens: options.answerMaxTokens,
    models,
    env,
    open: () => Promise.resolve(null),
    // S, the ranking and the engines' windows of a generation, frozen before any answer.
    async freeze(_, gen) {
      const [summaryNode, rankNode] = await Promise.all([
        executor.runStage(sweepSummaryStage, {
          label: `summary gen=${gen}`,
          params: {
            generation: gen,
            allowance: options.summaryAllowance,
            ...common,
            chat_model: models.description.chat_model,
            max_retries: options.summaryRetries,
          },
          ...unitsInput,
        }, modelEnv),
        executor.runStage(sweepRankStage, {
          label: `rank gen=${gen}`,
          params: {
            generation: gen,
            fixture: fixture.hash,
            decision_model: models.description.decision_model,
          },
          ...unitsInput,
        }, modelEnv),
      ]);
      const windows: Record<string, NodeResult<{ window: unknown }>> = {};
      await Promise.all(
        engines.filter((e) => !e.deterministic || gen === 0).map(async (e) => {
          windows[e.name] = await executor.runStage(sweepEngineStage, {
            label: `engine kind=${e.name} gen=${gen}`,
            params: {
              kind: e.name,
              engine: e.spec,
              adapters: e.adapters,
              generation: gen,
              input_cap: caps[0],
              ...common,
              chat_model: models.description.chat_model,
              decision_model: models.description.decision_model,
            },
            ...unitsInput,
          }, modelEnv);
        }),
      );
      frozenNodes.push(summaryNode, rankNode);
      for (const node of [summaryNode, rankNode, ...Object.values(windows)]) {
        // A node reused from a frozen run made (and counted) its calls there.
        if (node.node.reused_from !== undefined) reusedCompression++;
        else addUsage(usage, node.node.usage);
      }
      return { summaryNode, rankNode, windows };
    },
    // Full's context is counted against the primary ceiling (no ceiling limits it): one node at every ceiling.
    async condition(ceiling, _, gen, kind, { summaryNode, rankNode, windows }) {
      if (engineNames.has(kind) && windows[kind] === undefined) return null;
      const n = kind.startsWith("S+Top") ? Number(kind.slice(5)) : 0;
      const full = kind === "full";
      const inputs: Record<string, string> = { units: unitsHash };
      const values: Record<string, unknown> = { units };
      const builtIn = full || kind === "S" || kind.startsWith("S+Top");
      const declared = builtIn || engineNames.has(kind) ? undefined : declaredMethod(kind);
      const needs = declared ? contextNeeds(declared) : [];
      if ((builtIn && !full) || needs.includes("summary")) {
        inputs.summary = summaryNode.node.outputs.summary;
        values.summary = summaryNode.outputs.summary;
        await ceiling.count(kind, "summarizer", summaryNode.node);
      }
      if (n > 0 || needs.includes("ranking")) {
        inputs.ranking = rankNode.node.outputs.ranking;
        values.ranking = rankNode.outputs.ranking;
        await ceiling.count(kind, "decision", rankNode.node);
      }
      if (engineNames.has(kind)) {
        inputs.window = windows[kind].node.outputs.window;
        values.window = windows[kind].outputs.window;
        // An engine's own model calls: its summarizer (chat endpoint) and its rankings (System One).
        await ceiling.count(kind, "summarizer", windows[kind].node, "chat");
        await ceiling.count(kind, "decision", windows[kind].node, "systemone");
      }
      return {
        context: {
          label: `context kind=${kind}${full ? "" : ` gen=${gen}`}${full ? "" : ceiling.tag}`,
          params: { kind, top_n: n, input_cap: full ? caps[0] : ceiling.cap, ...common },
          inputs,
          values,
        },
        bound: !full,
        row: `kind=${kind} gen=${gen}`,
        answer: { kind, generation: gen },
      };
    },
    // Every context the rows were answered from, by generation, kind (and ceiling), for the explorer.
    contextDone(ceiling, node, { gen, method, bound }) {
      for (const part of ["context", "context-info"] as const) {
        const name = sweepContextInputName(part, method, gen, bound && caps.length > 1 ? ceiling.cap : null);
        const output = part === "context" ? "messages" : "info";
        contextParts.inputs[name] = node.node.outputs[output];
        contextParts.values[name] = node.outputs[output];
      }
    },
    score: (_, { node, answer, valid }) => ({
      params: { fixture: fixture.hash, valid },
      inputs: { answer: node.outputs.answer },
      values: { answer },
    }),
  }, check);
  const checkOnly = check.report(executor);
  if (checkOnly) return { rows: [], compressionUsage: usage, reusedCompression, checkOnly, files: {} };
  // The frozen run the compression nodes came from: this run's, or the one merged shards' nodes record.
  const frozenManifest = executor.frozen?.manifestHash ??
    frozenNodes.find((n) => n.node.reused_from?.manifest)?.node.reused_from?.manifest;
  const { published, files } = await publishAnswerRuns(
    context,
    {
      aggregate: sweepAggregateStage,
      ceilings: sweepCeilingsStage,
      report: sweepReportStage,
    },
    runs,
    env,
    (ceiling) => ({
      params: {
        top_n: options.topN,
        ...(extra.length > 0 ? { methods: extra } : {}),
        answering_models: ceiling.answeringModels(kinds, models.description),
      },
      inputs: sortedRecord(ceiling.aggregateInputs),
      values: ceiling.aggregateValues,
    }),
    async (aggregate, ceilings) => ({
      params: {
        fixture: {
          name: fixture.name,
          hash: fixture.hash,
          units: fixture.units.length,
          facts: fixture.facts.length,
        },
        models: models.description,
        tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
        options,
        compression_usage: usage,
        reused_compression: reusedCompression,
        frozen_run: frozenManifest ? `the frozen run with manifest sha256 ${frozenManifest}` : null,
        bootstrap: analysis.bootstrap ?? DEFAULT_RESAMPLES,
        cost: analysis.prices ? await runCost(run.readNodes(), analysis.prices, kinds) : null,
        ...(caps.length > 1 ? { ceilings: caps } : {}),
        ...engineReportParams(options.engines),
      },
      inputs: {
        aggregate: aggregate.node.outputs["aggregate.json"],
        results: aggregate.node.outputs["results.json"],
        ...ceilings.inputs,
        ...sortedRecord(contextParts.inputs),
      },
      values: {
        aggregate: aggregate.outputs["aggregate.json"],
        results: aggregate.outputs["results.json"],
        ...ceilings.values,
        ...contextParts.values,
      },
    }),
  );
  return {
    rows: parseJson(published.outputs["results.json"] as string) as SweepResultRow[],
    compressionUsage: usage,
    reusedCompression,
    checkOnly: null,
    files,
  };
}

/** One generation's frozen summary and ranking nodes, and its engines' windows (a deterministic one: gen 0). */
interface Frozen {
  summaryNode: NodeResult<{ summary: unknown }>;
  rankNode: NodeResult<{ ranking: unknown }>;
  windows: Record<string, NodeResult<{ window: unknown }>>;
}
