/**
 * The engines suite over the run store: a `transcript` node per conversation, an `engine` node per engine,
 * budget and conversation (always run afresh: latency is measured), then the aggregate and the report.
 * @module
 */
import { ModelTally, requestedModels } from "../../core/answering_models.ts";
import type { ImportedTranscript, Probe } from "../../data/transcripts/types.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import type { GenerateParamsInput } from "./generate.ts";
import { enginesTranscriptStage } from "./stages/transcript.ts";
import { enginesEngineStage } from "./stages/engine.ts";
import { basename } from "node:path";
import { conversationLabel, formatEnginesTable } from "./report.ts";
import { engineInputKey, enginesAggregateStage, pooledF1 } from "./stages/aggregate.ts";
import { enginesReportStage } from "./stages/report.ts";
import type { EngineSelection } from "../../methods/engines/engine_names.ts";
import { type BudgetSpec, budgetTokens, DEFAULT_BUDGET } from "./budgets.ts";
import type { ConversationRef, EngineResult, RunEnginesOptions } from "./run.ts";
import { DEFAULT_RESAMPLES } from "../../analysis/bootstrap.ts";

/** Where the transcript comes from. */
export type TranscriptSource =
  | { kind: "generated"; params: GenerateParamsInput }
  | {
    kind: "imported";
    path: string;
    format: string;
    transcript: ImportedTranscript;
    /** `--sample`: the conversations of a multi-sample file to run. */
    samples?: { sample: number; transcript: ImportedTranscript }[];
  };

/** Options of {@link runEnginesSuite}. */
interface EnginesSuiteOptions
  extends Pick<RunEnginesOptions, "timeoutMs" | "maxOutputBytes" | "engineEnv" | "hermesDir" | "endpoint"> {
  transcript: TranscriptSource;
  engines: EngineSelection[];
  repeats: number;
  /** Default: 25 % of the input tokens. */
  budgets?: BudgetSpec[];
  qa: boolean;
  recoveryRounds: number;
  /** Probes read from `--probes FILE` (replacing the transcript's own). */
  probes?: { path: string; probes: Probe[] };
  /** Bootstrap resamples of the report's intervals. */
  bootstrap?: number;
}

/** What the suite returns: the terminal's table, and the published files (name → node output blob). */
export interface EnginesSuiteResult {
  table: string;
  files: Record<string, string>;
}

/** Where an imported transcript's needles came from, or why there are none, for the report. */
export function importedNeedlesNote(transcript: ImportedTranscript): string {
  const count = transcript.needles?.length ?? 0;
  if (count > 0) return `needles: ${count} from the file's 'needles' field (as written by engines generate)`;
  if (transcript.needles !== undefined) return "needles n/a: the file's 'needles' field is empty";
  return `needles n/a: a ${transcript.format} transcript carries no planted facts (only a {messages, needles} ` +
    "file written by 'engines generate' does)";
}

/** The terminal's lines of LoCoMo QA F1 pooled per engine and budget over its conversations (none without). */
export function pooledF1Lines(results: readonly EngineResult[]): string {
  if (!results.some((r) => r.probes?.f1 !== undefined)) return "";
  const several = new Set(results.map((r) => r.budget)).size > 1;
  return "\n\nLoCoMo QA F1, pooled over every question of every conversation (95% CIs in REPORT.md):\n" +
    pooledF1(results).map((p) =>
      `  ${p.engine}${several ? ` @ ${p.budget}` : ""}: ${p.f1 === null ? "n/a" : (100 * p.f1).toFixed(1)}` +
      (p.f1_recovery === null ? "" : `, +recovery ${(100 * p.f1_recovery).toFixed(1)}`) +
      ` (${p.questions} questions, ${p.conversations} conversation${p.conversations === 1 ? "" : "s"})`
    ).join("\n");
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
  const conversations: (ConversationRef | undefined)[] = source.kind === "imported" && source.samples
    ? source.samples.map(({ sample, transcript }) => ({
      sample,
      sample_id: typeof transcript.meta.sample_id === "string" ? transcript.meta.sample_id : null,
    }))
    : [undefined];
  progress.plan(enginesTranscriptStage.name, conversations.length);
  // The transcript stage's text inputs: the imported file and the probes file, each when given.
  const inputs: Record<string, string> = {
    ...(source.kind === "imported" ? { file: run.header.sources["transcript"] } : {}),
    ...(options.probes ? { probes: run.header.sources["probes"] } : {}),
  };
  const values: Record<string, unknown> = {};
  for (const [name, hash] of Object.entries(inputs)) values[name] = await run.store.getText(hash);
  const transcriptNodes = [];
  for (const conversation of conversations) {
    transcriptNodes.push(
      await executor.runStage(enginesTranscriptStage, {
        ...(source.kind === "generated"
          ? {
            label: "transcript generated",
            params: { source: "generated" as const, params: source.params as Record<string, unknown> },
          }
          : {
            label: `transcript ${basename(source.path)}${
              conversation ? ` ${conversationLabel(conversation)}` : ""
            }`,
            params: {
              source: "imported" as const,
              format: source.transcript.format,
              ...(conversation ? { sample: conversation.sample } : {}),
            },
          }),
        inputs,
        values,
      }, {}),
    );
  }
  const transcriptNode = transcriptNodes[0];
  const transcript = transcriptNode.outputs.transcript;
  // Said in the report, never stored in the node: a path would make equal keys give different outputs.
  const description = source.kind === "generated"
    ? `generated (turns ${source.params.turns ?? 200}, needles ${source.params.needles ?? 12}, ` +
      `words per message ${source.params.wordsPerMsg ?? 60})`
    : `imported ${source.transcript.format} transcript ${basename(source.path)}${
      conversations[0] ? `, ${conversations.length} conversation(s)` : ""
    }; ${importedNeedlesNote(source.transcript)}`;
  const inputTokens = counter.countMessages(transcript.messages);
  const budgetsOf = (tokens: number) =>
    (options.budgets ?? [DEFAULT_BUDGET]).map((spec) => ({
      budget: spec.label,
      budget_tokens: budgetTokens(spec, tokens),
      ...(spec.kind === "context" ? { context_length: spec.tokens } : {}),
    }));
  const budgets = budgetsOf(inputTokens);
  progress.note(
    `transcript ${transcript.hash} (${transcript.messages.length} messages, ${inputTokens} tokens)`,
  );

  progress.plan(enginesEngineStage.name, options.engines.length * budgets.length * conversations.length);
  const results: EngineResult[] = [];
  const engineInputs: Record<string, string> = {};
  const engineValues: Record<string, unknown> = {};
  const tally = new ModelTally();
  const rowKeys: string[] = [];
  for (const [c, conversation] of conversations.entries()) {
    const node = transcriptNodes[c];
    const conversationTranscript = node.outputs.transcript;
    // A share budget is a share of this conversation's tokens.
    const conversationBudgets = c === 0
      ? budgets
      : budgetsOf(counter.countMessages(conversationTranscript.messages));
    const suffix = conversation ? ` (${conversationLabel(conversation)})` : "";
    for (
      const { budget: budgetLabel, budget_tokens: budgetCount, context_length: contextLength }
        of conversationBudgets
    ) {
      for (const { name, spec } of options.engines) {
        const engineNode = await executor.runStage(enginesEngineStage, {
          label: (budgets.length > 1 ? `engine ${name} at ${budgetLabel}` : `engine ${name}`) + suffix,
          params: {
            engine: spec,
            ...(name !== spec ? { name } : {}),
            ...(options.engineEnv && Object.keys(options.engineEnv).length > 0
              ? { engine_env: Object.keys(options.engineEnv).sort() }
              : {}),
            repeats: options.repeats,
            budget: budgetLabel,
            budget_tokens: budgetCount,
            ...(contextLength !== undefined ? { context_length: contextLength } : {}),
            ...(conversation ? { conversation } : {}),
            qa: options.qa,
            recovery_rounds: options.recoveryRounds,
            tokenizer: counter.hash,
            chat_model: models.description.chat_model,
            decision_model: models.description.decision_model,
          },
          inputs: { transcript: node.node.outputs.transcript },
          values: { transcript: conversationTranscript },
        }, {
          chat: models.chat,
          decision: models.decision,
          counter,
          timeoutMs: options.timeoutMs,
          maxOutputBytes: options.maxOutputBytes,
          engineEnv: options.engineEnv,
          hermesDir: options.hermesDir,
          endpoint: options.endpoint,
        });
        const measured = engineNode.outputs.result;
        const rowKey = engineInputKey(name, budgetLabel, conversation?.sample);
        tally.add(rowKey, "chat", await executor.answeredBy(engineNode.node, "chat"));
        tally.add(rowKey, "decision", await executor.answeredBy(engineNode.node, "systemone"));
        rowKeys.push(rowKey);
        results.push({ ...measured, window: null, records: [] });
        engineInputs[rowKey] = engineNode.node.outputs.result;
        engineValues[rowKey] = measured;
      }
    }
  }

  const table = formatEnginesTable(results) + pooledF1Lines(results);
  progress.plan(enginesAggregateStage.name, 1);
  progress.plan(enginesReportStage.name, 1);
  const aggregateNode = await executor.runStage(enginesAggregateStage, {
    label: "aggregate",
    params: {
      description,
      engines: options.engines.map(({ name }) => name),
      budgets: budgets.map(({ budget, budget_tokens }) => ({ budget, budget_tokens })),
      ...(budgets.some((b) => b.context_length !== undefined)
        ? { context_lengths: budgets.flatMap((b) => b.context_length ?? []) }
        : {}),
      tokenizer: { name: counter.name, hash: counter.hash },
      models: models.description,
      budget_tokens: budgets[0].budget_tokens,
      ...(conversations[0] ? { conversations: conversations as ConversationRef[] } : {}),
      repeats: options.repeats,
      ...(options.probes ? { probes_file: basename(options.probes.path) } : {}),
      answering_models: Object.fromEntries(
        rowKeys.map((key) => [key, tally.of(key, requestedModels(models.description), ["chat", "decision"])]),
      ),
    },
    inputs: { transcript: transcriptNode.node.outputs.transcript, ...engineInputs },
    values: { transcript, ...engineValues },
  }, {});
  const reportNode = await executor.runStage(enginesReportStage, {
    label: "report",
    params: {
      tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
      reference: models.description.mode === "reference",
      bootstrap: options.bootstrap ?? DEFAULT_RESAMPLES,
    },
    // The transcript gives the explorer each needle's fact and question.
    inputs: {
      results: aggregateNode.node.outputs["results.json"],
      transcript: transcriptNode.node.outputs.transcript,
    },
    values: { results: aggregateNode.outputs["results.json"], transcript },
  }, {});
  const files = {
    "results.json": aggregateNode.node.outputs["results.json"],
    "aggregate.json": aggregateNode.node.outputs["aggregate.json"],
    "stats.json": reportNode.node.outputs["stats.json"],
    "REPORT.md": reportNode.node.outputs["REPORT.md"],
    "report.html": reportNode.node.outputs["report.html"],
  };
  return { table, files };
}
