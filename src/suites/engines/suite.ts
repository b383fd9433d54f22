/**
 * The engines suite over the run store: one `transcript` node (generated or imported), one `engine` node per
 * engine (its measured result, the cold output window and every provider exchange), then `results.json` and
 * `REPORT.md`. Engine nodes always run afresh (latency is measured, so nothing is reused from a frozen run).
 *
 * @module
 */
import type { ImportedTranscript } from "../../data/transcripts/types.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import type { GenerateParamsInput } from "./generate.ts";
import { enginesTranscriptStage } from "./stages/transcript.ts";
import { enginesEngineStage } from "./stages/engine.ts";
import { basename } from "node:path";
import { formatEnginesTable } from "./report.ts";
import { enginesAggregateStage } from "./stages/aggregate.ts";
import { enginesReportStage } from "./stages/report.ts";
import { DEFAULT_BUDGET_SHARE, type EngineResult } from "./run.ts";

/** Where the transcript comes from. */
export type TranscriptSource =
  | { kind: "generated"; params: GenerateParamsInput }
  | { kind: "imported"; path: string; format: string; transcript: ImportedTranscript };

/** Options of {@link runEnginesSuite}. */
export interface EnginesSuiteOptions {
  transcript: TranscriptSource;
  engines: string[];
  repeats: number;
  budgetTokens?: number;
  timeoutMs?: number;
  qa: boolean;
}

/** What the suite returns. */
export interface EnginesSuiteResult {
  transcript: { hash: string; description: string; messages: number; tokens: number };
  budget_tokens: number;
  results: EngineResult[];
  table: string;
  /** Published file name → the node output blob that is its exact bytes. */
  files: Record<string, string>;
}

/** Runs the engines suite inside a run. */
export async function runEnginesSuite(
  context: RunContext,
  options: EnginesSuiteOptions,
  models: ModelSetup,
  counter: TokenCounter,
): Promise<EnginesSuiteResult> {
  const { executor, run, progress } = context;
  const source = options.transcript;
  progress.plan("engines-transcript", 1);
  const transcriptNode = await executor.runStage(
    enginesTranscriptStage,
    source.kind === "generated"
      ? {
        label: "transcript generated",
        params: { source: "generated" as const, params: source.params as Record<string, unknown> },
        inputs: {},
        values: {},
      }
      : {
        label: `transcript ${basename(source.path)}`,
        params: { source: "imported" as const, format: source.transcript.format },
        inputs: { file: run.header.sources["transcript"] },
        values: { file: await run.store.getText(run.header.sources["transcript"]) },
      },
    {},
  );
  const transcript = transcriptNode.outputs.transcript;
  // Said in the report, never stored in the node: a path would make equal keys give different outputs.
  const description = source.kind === "generated"
    ? `generated (turns ${source.params.turns ?? 200}, needles ${source.params.needles ?? 12}, ` +
      `words per message ${source.params.wordsPerMsg ?? 60})`
    : `imported ${source.transcript.format} transcript ${basename(source.path)}`;
  const inputTokens = counter.countMessages(transcript.messages);
  const budget = options.budgetTokens ?? Math.floor(inputTokens * DEFAULT_BUDGET_SHARE);
  progress.note(
    `transcript ${transcript.hash} (${transcript.messages.length} messages, ${inputTokens} tokens)`,
  );

  progress.plan("engines-engine", options.engines.length);
  const results: EngineResult[] = [];
  const engineInputs: Record<string, string> = {};
  const engineValues: Record<string, unknown> = {};
  for (const spec of options.engines) {
    const node = await executor.runStage(enginesEngineStage, {
      label: `engine ${spec}`,
      params: {
        engine: spec,
        repeats: options.repeats,
        budget_tokens: budget,
        qa: options.qa,
        tokenizer: counter.hash,
        chat_model: models.description.chat_model,
        decision_model: models.description.decision_model,
      },
      inputs: { transcript: transcriptNode.node.outputs.transcript },
      values: { transcript },
    }, { chat: models.chat, decision: models.decision, counter, timeoutMs: options.timeoutMs });
    const measured = node.outputs.result;
    results.push({ ...measured, window: null, records: [] });
    engineInputs[`engine:${spec}`] = node.node.outputs.result;
    engineValues[`engine:${spec}`] = measured;
  }

  const table = formatEnginesTable(results);
  // Every published number is a node output: the aggregate takes the transcript and every engine's result.
  progress.plan("engines-aggregate", 1);
  progress.plan("engines-report", 1);
  const aggregateNode = await executor.runStage(enginesAggregateStage, {
    label: "aggregate",
    params: {
      description,
      engines: options.engines,
      tokenizer: { name: counter.name, hash: counter.hash },
      models: models.description,
      budget_tokens: budget,
      repeats: options.repeats,
    },
    inputs: { transcript: transcriptNode.node.outputs.transcript, ...engineInputs },
    values: { transcript, ...engineValues },
  }, {});
  const reportNode = await executor.runStage(enginesReportStage, {
    label: "report",
    params: {
      tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
      reference: models.description.mode === "reference",
    },
    inputs: { results: aggregateNode.node.outputs["results.json"] },
    values: { results: aggregateNode.outputs["results.json"] },
  }, {});
  const files = {
    "results.json": aggregateNode.node.outputs["results.json"],
    "aggregate.json": aggregateNode.node.outputs["aggregate.json"],
    "REPORT.md": reportNode.node.outputs["REPORT.md"],
    "report.html": reportNode.node.outputs["report.html"],
  };
  return {
    transcript: {
      hash: transcript.hash,
      description: description,
      messages: transcript.messages.length,
      tokens: inputTokens,
    },
    budget_tokens: budget,
    results,
    table,
    files,
  };
}
