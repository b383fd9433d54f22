/**
 * `compaction-bench hotpot collect`: its options, help and parsing.
 * @module
 */
import { HOTPOT_COLLECT_SUITE } from "../../suites/hotpot/collect_definition.ts";
import { z } from "zod";
import { hotpotCollect } from "../../suites/hotpot/collect_command.ts";
import { DEFAULT_SELECTION } from "../../suites/hotpot/collect/select.ts";
import { MODEL_OPTION_HELP, ModelOptionsShape } from "../model_options.ts";
import { SHARD_OPTION_HELP, ShardOption } from "../../pipeline/shard.ts";
import { parseOptions } from "../args.ts";
import { intOption } from "../numbers.ts";
import { RUN_OPTION_HELP, RunOptionsShape, runResumableCommand } from "../run_setup.ts";
import { DEFAULT_AGENT_TIMEOUT_S } from "../../suites/hotpot/collect/collect_mode.ts";
import { CLI } from "../../core/program_name.ts";
import { hermesAgentArgv } from "./hermes_option.ts";

const MAX_SEED = 4_294_967_295;
const MAX_CHARS = 10_000_000;
/** The model options of a collection (--live is listed once with the modes). */
const COLLECT_MODEL_HELP = MODEL_OPTION_HELP.split("\n")
  .filter((line) => !/^ {2}--(live|reference|reference-delay-ms)\b/.test(line)).join("\n");

const COLLECT_HELP = `${CLI} hotpot collect [options]

Freezes the question selection (before any model call) and collects each question's trajectory: the agent
reads the ten articles through read_file tool calls. Writes corpus.json (dataset hash, protocol, filter
counts, trajectories; gold labels kept apart) into the run directory.

Options:
  --dataset FILE       HotpotQA distractor records, Hugging Face Parquet or official JSON
                       (default: the embedded demo data)
  --questions N        questions in all, half bridge and half comparison (default 30, at most 100000)
  --bridge N, --comparison N   per-type quotas (override --questions; each at most 100000)
  --seed N             selection seed (default ${DEFAULT_SELECTION.seed}, at most ${MAX_SEED})
  --min-chars N, --max-chars N evidence characters (default ${DEFAULT_SELECTION.minChars}–${DEFAULT_SELECTION.maxChars}, at most ${MAX_CHARS})
  --tokenizer PATH     tokenizer directory or its tokenizer.json (recorded in the manifest)
${SHARD_OPTION_HELP}
                       (by question id hash; the selection stays whole, corpus.json holds the part)

Collection mode (one is required for any dataset but the embedded demo, where --scripted is the default;
the mode is recorded in corpus.json and named in every report):
  --scripted           deterministic real read_file calls by this program (not an agent)
  --live               an agent loop with the chat model (needs the --live credentials)
  --hermes-sessions DIR  import Hermes session JSON files named <question id>.json
  --hermes DIR [--hermes-python PY]   the real Hermes Agent (a checkout in DIR, run by PY, default
                       python3) through adapters/hermes_collect.py: the same as --agent exec:'PY
                       adapters/hermes_collect.py --hermes DIR' (with --reference or --live for its model)
  --agent exec:'CMD'   an outside agent: CMD runs in the question's workspace, reads {question, files,
                       titles, task, workspace} as JSON on stdin and prints a Hermes-format session on stdout
                       (adapters/hermes_collect.py runs the real Hermes Agent this way)
  --agent-timeout S    seconds per question for --agent (default ${DEFAULT_AGENT_TIMEOUT_S})
  --agent-system-prompt FILE   for --agent: a system prompt handed to the agent as system_prompt (default:
                       none; the agent uses its own, which is what the protocol records)
  --agent-env NAME     repeatable, for --agent: pass this variable to the agent (it otherwise sees only
                       PATH, HOME, LANG and TMPDIR); the way to hand an agent a key: a key inside --agent
                       or any other option is refused. Short values (under 8 characters: EMPTY, ollama)
                       are never redacted and never promised secret
  --agent ... --reference | --live   the agent's chat model: this program's loopback endpoint forwards
                       to the reference model (or the --live one); the agent gets LLM_BASE_URL, LLM_MODEL
                       and a per-question token as LLM_API_KEY, and its calls are recorded

Model options (for --live):
${COLLECT_MODEL_HELP}
${RUN_OPTION_HELP}

Exit codes: 0 at least one valid trajectory (or a shard whose part holds no question), 1 none valid or an
agent's provider calls failed (the run is still written; it names the --retry-failed command), 2 bad input,
130/143 stopped by SIGINT/SIGTERM (continue with --resume DIR).`;

export async function hotpotCollectCli(givenArgv: string[]): Promise<number> {
  const argv = await hermesAgentArgv(givenArgv);
  const parse = (words: string[]) =>
    parseOptions("hotpot collect", words, {
      ...RunOptionsShape,
      ...ModelOptionsShape,
      dataset: z.string().optional(),
      questions: intOption(1, 100_000).optional(),
      bridge: intOption(0, 100_000).optional(),
      comparison: intOption(0, 100_000).optional(),
      seed: intOption(0, MAX_SEED).optional(),
      "min-chars": intOption(0, MAX_CHARS).optional(),
      "max-chars": intOption(1, MAX_CHARS).optional(),
      scripted: z.boolean().optional(),
      "hermes-sessions": z.string().optional(),
      agent: z.string().optional(),
      "agent-timeout": intOption(1, 86_400).optional(),
      "agent-system-prompt": z.string().optional(),
      "agent-env": z.array(z.string().min(1)).optional(),
      tokenizer: z.string().optional(),
      shard: ShardOption.optional(),
    });
  await runResumableCommand(HOTPOT_COLLECT_SUITE, argv, parse, COLLECT_HELP, hotpotCollect);
  return 0;
}
