/**
 * The engines suite over the run store: one `transcript` node (generated or imported, with the probes of a
 * `--probes` file), one `engine` node per engine and budget (its measured result, the cold output window and
 * every provider exchange), then `results.json`, `REPORT.md` and `report.html`. Engine nodes always run
 * afresh (latency is measured, so nothing is reused from a frozen run). With several budgets every engine is
 * measured at each, budget by budget.
 *
 * @module
 */
import type { ImportedTranscript, Probe } from "../../data/transcripts/types.ts";
import type { ChatMessage } from "../../models/messages.ts";
import type { TokenCounter } from "../../tokens/types.ts";
import type { ModelSetup } from "../model_setup.ts";
import type { RunContext } from "../run_lifecycle.ts";
import { type GenerateParamsInput, generateTranscript } from "./generate.ts";
import type { Needle } from "./needles.ts";
import { enginesReportMarkdown, formatEnginesTable } from "./report.ts";
import { enginesReportHtml } from "../../report/engines_html.ts";
import type { EngineSelection } from "../../methods/engines/create.ts";
import { type BudgetSpec, budgetTokens, DEFAULT_BUDGET } from "./budgets.ts";
import { type EngineResult, runEngines } from "./run.ts";
import { transcriptHash } from "./transcript_hash.ts";

/** Where the transcript comes from. */
export type TranscriptSource =
  | { kind: "generated"; params: GenerateParamsInput }
  | { kind: "imported"; path: string; format: string; transcript: ImportedTranscript };

/** Options of {@link runEnginesSuite}. */
export interface EnginesSuiteOptions {
  transcript: TranscriptSource;
  engines: EngineSelection[];
  repeats: number;
  /** Budgets to measure at (default: 25 % of the input tokens). */
  budgets?: BudgetSpec[];
  timeoutMs?: number;
  qa: boolean;
  /** Probes read from `--probes FILE` (replacing the transcript's own), and the file's path. */
  probes?: { path: string; probes: Probe[] };
  /** Variables passed to outside engines (`--engine-env`). */
  engineEnv?: Readonly<Record<string, string>>;
  /** Hermes Agent's directory for the `hermes` and `hermes-lcm` adapters. */
  hermesDir?: string;
}

interface StoredTranscript {
  messages: ChatMessage[];
  needles: Needle[];
  probes: Probe[];
  hash: string;
}

/** What the suite returns. */
export interface EnginesSuiteResult {
  transcript: { hash: string; description: string; messages: number; tokens: number };
  /** The first budget in tokens (the only one unless several were asked for). */
  budget_tokens: number;
  budgets: { budget: string; budget_tokens: number }[];
  results: EngineResult[];
  table: string;
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
  const transcriptNode = await executor.execute(
    source.kind === "generated"
      ? {
        stage: "engines-transcript",
        version: 1,
        label: "transcript generated",
        params: { source: "generated", params: source.params },
        inputs: options.probes ? { probes: run.header.sources["probes"] } : {},
      }
      : {
        stage: "engines-transcript",
        version: 1,
        label: `transcript ${source.path}`,
        params: { source: "imported", format: source.format },
        inputs: {
          file: run.header.sources["transcript"],
          ...(options.probes ? { probes: run.header.sources["probes"] } : {}),
        },
      },
    () => {
      if (source.kind === "generated") {
        const generated = generateTranscript(source.params);
        const value: StoredTranscript = {
          messages: generated.messages,
          needles: generated.needles,
          probes: options.probes?.probes ?? [],
          hash: generated.hash,
        };
        return Promise.resolve({ outputs: { transcript: value } });
      }
      const imported = source.transcript;
      const value: StoredTranscript = {
        messages: imported.messages,
        needles: [],
        probes: options.probes?.probes ?? imported.probes,
        hash: transcriptHash(imported.messages),
      };
      return Promise.resolve({ outputs: { transcript: value } });
    },
  );
  const transcript = transcriptNode.outputs.transcript as StoredTranscript;
  // Said in the report, never stored in the node: a path would make equal keys give different outputs.
  const description = source.kind === "generated"
    ? `generated (turns ${source.params.turns ?? 200}, needles ${source.params.needles ?? 12}, ` +
      `words per message ${source.params.wordsPerMsg ?? 60})`
    : `imported ${source.transcript.format} transcript ${source.path}`;
  const inputTokens = counter.countMessages(transcript.messages);
  const budgets = (options.budgets ?? [DEFAULT_BUDGET]).map((spec) => ({
    budget: spec.label,
    budget_tokens: budgetTokens(spec, inputTokens),
  }));
  const budget = budgets[0].budget_tokens;
  progress.note(
    `transcript ${transcript.hash} (${transcript.messages.length} messages, ${inputTokens} tokens)`,
  );

  progress.plan("engines-engine", options.engines.length * budgets.length);
  const results: EngineResult[] = [];
  for (const { budget: budgetLabel, budget_tokens: budgetCount } of budgets) {
    for (const { name, spec } of options.engines) {
      const node = await executor.execute(
        {
          stage: "engines-engine",
          version: 1,
          label: budgets.length > 1 ? `engine ${name} at ${budgetLabel}` : `engine ${name}`,
          params: {
            engine: spec,
            ...(name !== spec ? { name } : {}),
            ...(options.engineEnv && Object.keys(options.engineEnv).length > 0
              ? { engine_env: Object.keys(options.engineEnv).sort() }
              : {}),
            repeats: options.repeats,
            budget: budgetLabel,
            budget_tokens: budgetCount,
            qa: options.qa,
            tokenizer: counter.hash,
            chat_model: models.description.chat_model,
            decision_model: models.description.decision_model,
          },
          inputs: { transcript: transcriptNode.node.outputs.transcript },
          provider: true,
          reuseFrozen: false,
        },
        async () => {
          const [result] = await runEngines({
            messages: transcript.messages,
            needles: transcript.needles,
            probes: transcript.probes,
            engines: [{ name, spec }],
            repeats: options.repeats,
            counter,
            chat: models.chat,
            decision: models.decision,
            budgetTokens: budgetCount,
            budgetLabel,
            timeoutMs: options.timeoutMs,
            qa: options.qa,
            engineEnv: options.engineEnv,
            hermesDir: options.hermesDir,
          });
          const { window, records, ...measured } = result;
          return {
            outputs: { result: measured, window },
            requests: records,
            status: result.status === "failed" ? "invalid" : "ok",
            ...(result.reason ? { reason: result.reason } : {}),
          };
        },
      );
      const measured = node.outputs.result as Omit<EngineResult, "window" | "records">;
      results.push({ ...measured, window: null, records: [] });
    }
  }

  const table = formatEnginesTable(results);
  await run.writeJsonFile("results.json", {
    suite: "engines",
    transcript: {
      hash: transcript.hash,
      description: description,
      messages: transcript.messages.length,
      tokens: inputTokens,
      // Where each needle sits: its message, its depth (0 first message, 1 last), role and position.
      needles: transcript.needles.map(({ id, message_index, depth, role, position }) => ({
        id,
        message_index,
        depth,
        role,
        position,
      })),
      probes: transcript.probes.length,
      ...(options.probes ? { probes_file: options.probes.path } : {}),
    },
    tokenizer: { name: counter.name, hash: counter.hash },
    models: models.description,
    budget_tokens: budget,
    budgets,
    repeats: options.repeats,
    engines: results.map(({ window: _w, records: _r, ...rest }) => rest),
  });
  const reportMeta = {
    transcript: description,
    transcriptHash: transcript.hash,
    tokenizer: `${counter.name} (${counter.hash.slice(0, 12)})`,
    chatModel: models.description.chat_model,
    decisionModel: models.description.decision_model,
    reference: models.description.mode === "reference",
    repeats: options.repeats,
    budgets,
  };
  await run.writeFile("REPORT.md", enginesReportMarkdown(results, reportMeta));
  await run.writeFile("report.html", enginesReportHtml(results, reportMeta));
  return {
    transcript: {
      hash: transcript.hash,
      description: description,
      messages: transcript.messages.length,
      tokens: inputTokens,
    },
    budget_tokens: budget,
    budgets,
    results,
    table,
  };
}
