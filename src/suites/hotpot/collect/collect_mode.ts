/**
 * `hotpot collect`'s explicit mode (`--scripted`, `--live`, `--hermes-sessions DIR`, `--agent`), the sessions
 * folder checked and read before the run (through the shared input checks), and the summary printed after.
 * @module
 */
import { join } from "node:path";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { CheckFailedError, UsageError } from "../../../errors.ts";
import {
  type CollectMode,
  importHermesSessionBytes,
  parseAgentSpec,
  sessionSourceName,
} from "./collect_question.ts";
import { readPassedEnv } from "../../../methods/engines/split_command.ts";
import type { Corpus, CorpusQuestion } from "../corpus.ts";
import { CLI } from "../../../core/program_name.ts";
import {
  inputError,
  readInputFile,
  statInputDirectory,
  statInputFile,
  subjectOf,
} from "../../../fs_input.ts";

/** What a collection's summary reads of its corpus (a corpus is one). */
export interface CollectionOutline {
  protocol: Pick<Corpus["protocol"], "collection" | "bridge" | "comparison">;
  shard?: Corpus["shard"];
  questions: Pick<CorpusQuestion, "id" | "valid" | "reason" | "files_unchanged">[];
}

/** Seconds an outside agent may take per question by default. */
export const DEFAULT_AGENT_TIMEOUT_S = 1800;

interface AgentModeOptions {
  agent?: string;
  "agent-timeout"?: number;
  "agent-system-prompt"?: string;
  "agent-env"?: string[];
}

/** The outside-agent collection mode of the options (the system prompt file read now, before any run). */
export async function agentMode(options: AgentModeOptions): Promise<CollectMode & { kind: "agent" }> {
  const command = options.agent!;
  let systemPrompt: string | undefined;
  const file = options["agent-system-prompt"];
  if (file !== undefined) {
    try {
      systemPrompt = await Deno.readTextFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) {
        throw new UsageError(`--agent-system-prompt ${file}: not a readable file`);
      }
      throw error;
    }
    if (systemPrompt.trim() === "") throw new UsageError(`--agent-system-prompt ${file}: empty`);
  }
  return {
    kind: "agent",
    command,
    argv: parseAgentSpec(command),
    timeoutMs: 1000 * (options["agent-timeout"] ?? DEFAULT_AGENT_TIMEOUT_S),
    passedEnv: readPassedEnv(options["agent-env"] ?? [], "--agent-env"),
    ...(systemPrompt !== undefined ? { systemPrompt } : {}),
  };
}

/** The one collection mode the options choose; refuses none (for a dataset) or several. */
export function chooseCollectionMode(
  options: AgentModeOptions & {
    dataset?: string;
    scripted?: boolean;
    live?: boolean;
    "hermes-sessions"?: string;
  },
): "scripted" | "live" | "hermes" | "agent" {
  const chosen: ("scripted" | "live" | "hermes" | "agent")[] = [];
  if (options.scripted) chosen.push("scripted");
  // With --agent, --live names the chat model the agent reaches through the loopback endpoint.
  if (options.live && options.agent === undefined) chosen.push("live");
  if (options["hermes-sessions"] !== undefined) chosen.push("hermes");
  if (options.agent !== undefined) chosen.push("agent");
  if (chosen.length > 1) {
    throw new UsageError("hotpot collect: choose one of --scripted, --live, --hermes-sessions and --agent");
  }
  const agentOnly = ["agent-timeout", "agent-system-prompt", "agent-env"] as const;
  if (chosen[0] !== "agent" && agentOnly.some((name) => options[name] !== undefined)) {
    throw new UsageError(
      "hotpot collect: --agent-timeout, --agent-system-prompt and --agent-env need --agent exec:'CMD'",
    );
  }
  if (chosen.length === 0) {
    if (options.dataset === undefined) return "scripted";
    throw new UsageError(
      `hotpot collect --dataset ${options.dataset}: say how trajectories are collected: --scripted ` +
        `(this program reads the files; not an agent), --live, --hermes-sessions DIR or --agent exec:'CMD'`,
    );
  }
  return chosen[0];
}

/** The selected records' session files as sources; missing: left out, none or unimportable: {@link UsageError}. */
export async function readHermesSessions(
  dir: string,
  records: readonly HotpotRecord[],
): Promise<Record<string, Uint8Array>> {
  await statInputDirectory(dir, OPTION);
  // Stat first: anything but a regular file is refused before any is opened.
  const found: [HotpotRecord, string][] = [];
  for (const record of records) {
    const file = join(dir, `${record.id}.json`);
    try {
      await Deno.lstat(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // no session for this question
      throw inputError(error, file, OPTION);
    }
    await statInputFile(file, OPTION);
    found.push([record, file]);
  }
  if (found.length === 0) {
    throw new UsageError(
      `${subjectOf(dir, OPTION)}: no session file for any of the ${records.length} selected question(s) ` +
        `(expected <question id>.json)`,
    );
  }
  const sources: Record<string, Uint8Array> = {};
  for (const [record, file] of found) {
    const bytes = await readInputFile(file, OPTION);
    importHermesSessionBytes(bytes, record, file);
    sources[sessionSourceName(record.id)] = bytes;
  }
  return sources;
}

/** The lines printed after a collection: how many are valid, why the others are not, unverifiable checks. */
export function collectionSummaryLines(corpus: CollectionOutline, runPath: string): string[] {
  const questions = corpus.questions;
  const valid = questions.filter((q) => q.valid).length;
  const lines = [
    `collected ${valid}/${questions.length} valid trajectories (collection: ${corpus.protocol.collection})`,
  ];
  if (corpus.shard !== undefined) {
    lines.push(
      `shard ${corpus.shard.index}/${corpus.shard.count}: ${questions.length} of the selection's ` +
        `${corpus.protocol.bridge + corpus.protocol.comparison} question(s); join the shards with ` +
        `'${CLI} merge OUT RUN...'`,
    );
  }
  for (const q of questions) if (!q.valid) lines.push(`  invalid ${q.id}: ${q.reason}`);
  const unverifiable = questions.filter((q) => q.files_unchanged === "not verifiable").length;
  if (unverifiable > 0) {
    const of = `${unverifiable} of ${questions.length} question(s)`;
    lines.push(`files unchanged: not verifiable for ${of} (no workspace hashes in the session)`);
  }
  lines.push(`corpus: ${runPath}/corpus.json`);
  return lines;
}

/** Throws {@link CheckFailedError} (exit 1) when no trajectory of the collection is valid. */
export function assertSomeValid(corpus: CollectionOutline): void {
  if (corpus.questions.some((q) => q.valid)) return;
  throw new CheckFailedError(
    `no valid trajectory among ${corpus.questions.length} question(s): nothing to evaluate`,
  );
}

const OPTION = "--hermes-sessions";
