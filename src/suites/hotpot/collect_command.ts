/**
 * `hotpot collect` after parsing: inputs checked before anything is written, then the shared run set-up.
 * @module
 */
import { passedSecrets } from "../../core/secrets.ts";
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { sha256Hex } from "../../store/hash.ts";
import { readInputFile } from "../../fs_input.ts";
import { refuseGiven } from "../../core/option_rules.ts";
import { refuseWithRetry, runSuiteCommand } from "../run_command.ts";
import type { RunCommandOptions, RunInvocation } from "../run_lifecycle.ts";
import {
  assertQuotaMet,
  collectCorpus,
  type CollectMode,
  HOTPOT_COLLECT_SUITE,
} from "./collect_definition.ts";
import { hotpotDatasetFile } from "./collect/dataset_file.ts";
import { selectionReportOf } from "./collect/stages/collect.ts";
import { DEFAULT_SELECTION } from "./collect/select.ts";
import type { Shard } from "../../pipeline/shard.ts";
import {
  agentMode,
  assertSomeValid,
  chooseCollectionMode,
  collectionSummaryLines,
  readHermesSessions,
} from "./collect/collect_mode.ts";

const DEMO_DATASET = assetPath("fixtures/hotpot/demo.parquet");

/** The parsed options of `hotpot collect`. */
export interface HotpotCollectOptions extends RunCommandOptions {
  dataset?: string;
  questions?: number;
  bridge?: number;
  comparison?: number;
  seed?: number;
  "min-chars"?: number;
  "max-chars"?: number;
  scripted?: boolean;
  "hermes-sessions"?: string;
  agent?: string;
  "agent-timeout"?: number;
  "agent-system-prompt"?: string;
  "agent-env"?: string[];
  tokenizer?: string;
  shard?: Shard;
}

/** `hotpot collect`: returns the run directory. */
export async function hotpotCollect(
  options: HotpotCollectOptions,
  invocation: RunInvocation,
): Promise<string> {
  const modeKind = chooseCollectionMode(options);
  refuseGiven("hotpot collect", options, ["frozen-run", "check-only"], "not supported (nothing is reused)");
  refuseWithRetry(options);
  const datasetPath = options.dataset ?? DEMO_DATASET;
  // corpus.json's path: the embedded data's does not depend on where the program is installed.
  const datasetLabel = options.dataset ?? "embedded:fixtures/hotpot/demo.parquet";
  const bytes = await readInputFile(datasetPath, "--dataset");
  const dataset = hotpotDatasetFile(datasetPath, "--dataset");
  const questions = options.questions ?? DEFAULT_SELECTION.bridge + DEFAULT_SELECTION.comparison;
  const selection = {
    bridge: options.bridge ?? Math.ceil(questions / 2),
    comparison: options.comparison ?? Math.floor(questions / 2),
    seed: options.seed ?? DEFAULT_SELECTION.seed,
    minChars: options["min-chars"] ?? DEFAULT_SELECTION.minChars,
    maxChars: options["max-chars"] ?? DEFAULT_SELECTION.maxChars,
  };
  if (selection.minChars > selection.maxChars) throw new UsageError("--min-chars is larger than --max-chars");
  if (selection.bridge + selection.comparison === 0) {
    throw new UsageError("hotpot collect: --bridge 0 and --comparison 0 select no question");
  }
  // Unfillable quotas are refused before anything is written (the select node reuses the candidates).
  const selected = selectionReportOf(await dataset.candidates(selection), selection);
  assertQuotaMet(selected.report, datasetLabel, selection);
  // Read before the tokenizer is built, so the two never add up in memory; the dataset remembers them.
  const { byId } = await dataset.records(new Set(selected.ids));
  const sessions = modeKind === "hermes"
    ? await readHermesSessions(options["hermes-sessions"]!, selected.ids.map((id) => byId.get(id)!))
    : {};
  // An outside agent with --reference or --live reaches that chat model through the loopback endpoint.
  const agentModel = modeKind === "agent" && (options.reference === true || options.live === true);
  const finished = await runSuiteCommand({
    suite: HOTPOT_COLLECT_SUITE,
    options,
    invocation,
    models: modeKind === "live" || agentModel,
    endpoint: agentModel,
    // Every shard declares the whole selection's sources, so a merge equals the unsharded run.
    sources: { dataset: bytes, ...sessions },
    async prepare({ models, endpoint }) {
      const mode: CollectMode = modeKind === "live"
        ? { kind: "live", chat: models!.chat, model: models!.description.chat_model }
        : modeKind === "agent"
        ? { ...await agentMode(options), ...(endpoint ? { endpoint } : {}) }
        : { kind: modeKind };
      const protocol = {
        suite: "hotpot",
        stage: "collect",
        selection,
        collection: mode.kind,
        ...(mode.kind === "agent" ? { agent: mode.command } : {}),
        ...(endpoint ? { agent_model: models!.description } : {}),
        // The names of the variables the agent was given, never their values.
        ...(mode.kind === "agent" && Object.keys(mode.passedEnv).length > 0
          ? { agent_env: Object.keys(mode.passedEnv).sort() }
          : {}),
      };
      return {
        protocol,
        ...(mode.kind === "agent" ? { secrets: passedSecrets("--agent-env", mode.passedEnv) } : {}),
        value: mode,
      };
    },
    async run(context, _setup, mode) {
      const corpus = await collectCorpus(context, {
        datasetPath: datasetLabel,
        datasetSha256: sha256Hex(bytes),
        dataset,
        selection,
        mode,
        ...(options.shard !== undefined ? { shard: options.shard } : {}),
      });
      return { result: corpus, files: {}, lines: collectionSummaryLines(corpus, context.run.path) };
    },
  });
  // A shard whose part of the selection holds no question is a finished part, not a failed collection.
  if (options.shard === undefined || finished.result.questions.length > 0) assertSomeValid(finished.result);
  return finished.path;
}
