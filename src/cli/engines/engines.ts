/**
 * `compaction-bench engines run|generate`: context engines head to head on a long transcript.
 * @module
 */
import { ENGINES_SUITE } from "../../suites/engines/definition.ts";
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import { BUILTIN_ENGINES, REAL_COMPETITORS } from "../../methods/engines/engine_names.ts";
import { FRAMEWORK_ENGINES } from "../../methods/engines/frameworks/framework_engines.ts";
import { generateTranscript } from "../../suites/engines/generate.ts";
import {
  enginesRunCommand,
  EnginesRunShape,
  generatorParams,
  GeneratorShape,
  MAX_GENERATED_WORDS,
} from "./run.ts";
import { MODEL_OPTION_HELP } from "../model_options.ts";
import { dispatch, parseOptions, printHelp } from "../args.ts";
import { RUN_EXIT_HELP, RUN_OPTION_HELP, runInvocation } from "../run_setup.ts";
import { writeFileAtomic } from "../../store/run_dir.ts";
import { checkNewOutputPath, inputError } from "../../fs_input.ts";
import { BOOTSTRAP_OPTION_HELP } from "../numbers.ts";
import { CLI } from "../../core/program_name.ts";

const GENERATOR_HELP = `  --turns N            generated transcript: turns (default 200, at most 100000)
  --needles N          generated transcript: planted facts (default 12, at most 999)
  --words-per-msg N    generated transcript: words per message (default 60, at most 10000;
                       turns × words-per-msg at most ${MAX_GENERATED_WORDS})
  --needle-depths LIST generated transcript: depth of each needle in [0,1], comma-separated
                       (default: spread over the early region, 5%-45% of the transcript)
  --seed TEXT          generated transcript: seed (default compaction-bench)`;

/** The shared run options engines run supports (latencies are measured afresh: no resume or check-only). */
const ENGINES_RUN_OPTION_HELP = RUN_OPTION_HELP.split("\n")
  .filter((line) => !/^\s+--(resume|check-only|retry-failed)\b/.test(line))
  .filter((line) => !/^\s{20,}(\(answers included\)|and what depends on them)/.test(line))
  .join("\n");

const RUN_HELP = `${CLI} engines run [options] (--reference | --live)

Runs context engines head to head on one transcript: token savings (real tokenizer and chat template),
verbatim needle recall, tool-pairing validity, messages out, the engine's own compress time (cold, warm
median, p95; outside engines run as persistent workers timed inside), round trip, start-up and
QA recall (the chat model answers each needle's question from the compacted window or NOT IN CONTEXT,
one question per prompt; a LoCoMo file's own QA annotations are scored by LoCoMo's answer F1).

Options:
  --engine [NAME=]SPEC repeatable: ${BUILTIN_ENGINES.join(", ")} (hermes-like is this program's own
                       reimplementation, labelled so; any method hotpot and sweep run, over the
                       transcript's messages), the real competitors ${
  Object.keys(REAL_COMPETITORS).join(", ")
}
                       (adapters/*.py through exec:; a missing package or daemon reads "skipped"),
                       the frameworks' own compaction ${Object.keys(FRAMEWORK_ENGINES).join(", ")}
                       (the real npm libraries, in-process), exec:'COMMAND ARGS',
                       exec+tools:'COMMAND ARGS' (stays alive to serve the recall tools it offers)
                       or http:URL; NAME names the row in every table
                       (default: every built-in engine)
  --engine-env NAME    repeatable: pass this variable to outside engines (they otherwise see only PATH,
                       HOME, LANG and TMPDIR; e.g. LLM_BASE_URL and LLM_API_KEY for the Hermes adapter);
                       the way to hand an engine a key: a key inside --engine or any other option is
                       refused. Values of 8 characters or more are redacted from what an engine writes
                       back; shorter values (EMPTY, ollama) are never redacted and never promised secret
  --hermes DIR         Hermes Agent checkout for the hermes and hermes-lcm adapters
                       (default: $HERMES_AGENT_DIR)
  --transcript FILE    import a transcript (OpenAI messages, Hermes session, ShareGPT JSONL, LoCoMo)
  --format F           auto (default), openai, hermes-session, sharegpt, locomo
  --sample K|all       repeatable: which conversations of a multi-sample file (LoCoMo, ShareGPT lines) to
                       run, by index (0 = the first; default 0), or all of them; a row per conversation
                       per engine, LoCoMo QA F1 pooled over them per engine with a 95% CI
  --probes FILE        probes of Hermes' compression eval ({fixture, probes: [{id, type, question,
                       expected_facts}]}): the chat model answers each from the compacted window
${GENERATOR_HELP}
  --repeats N          warm compress calls after the cold one (default 3, at most 1000)
  --budget LIST        token budgets, comma-separated: shares like 10%,25%,50% of the transcript's tokens
                       or token counts (default 25% unless --context-length is given); every engine is
                       measured at each. Asks: what does each engine keep when told to fit this target?
  --context-length LIST  host context windows in tokens, comma-separated (e.g. 8000,16000; at most 100000000):
                       each engine is told the window as its host tells it (Hermes' context_length /
                       update_model, lean-ctx's plugin config, context_length in an exec: request) and
                       decides what to keep; engines without such a knob fit the window. Asks: what does
                       each engine do in a host with this window? Rows are labelled "ctx N"
  --engine-timeout-ms N  time limit of one outside-engine call (default 60000, at most 3600000)
  --no-qa              skip the QA recall questions
  --recovery-rounds N  tool rounds per question of the +recovery arm, asked again with the recall tools
                       an engine offers (default 1, at most 8; 0: window alone only)
  --tokenizer PATH     Hugging Face tokenizer directory or its tokenizer.json (default: Qwen3, embedded)
${BOOTSTRAP_OPTION_HELP}
${MODEL_OPTION_HELP}
${ENGINES_RUN_OPTION_HELP}

${RUN_EXIT_HELP.replace("(continue with --resume DIR)", "(an engines run is started afresh)")}`;

const GENERATE_HELP = `${CLI} engines generate [options] [--output FILE]

Generates the deterministic transcript and prints its SHA-256; with --output writes it as JSON
({messages, needles}: 'engines run --transcript FILE' reads it back with its needles); an existing file
is refused.

Options:
${GENERATOR_HELP}
  -o, --output FILE    write the transcript here (--out is the same option)`;

async function generate(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("engines generate", argv, {
    output: z.string().optional(),
    out: z.string().optional(),
    ...GeneratorShape,
  });
  if (options.help) return printHelp(GENERATE_HELP);
  if (positionals.length > 0) {
    throw new UsageError(`engines generate: unexpected argument '${positionals[0]}'`);
  }
  if (options.output !== undefined && options.out !== undefined) {
    throw new UsageError("engines generate: --output and --out are the same option; give one");
  }
  const out = options.output ?? options.out;
  const flag = options.output !== undefined ? "--output" : "--out";
  const params = generatorParams(options);
  if (out) await checkNewOutputPath(out, flag, { parentMustExist: true });
  const transcript = generateTranscript(params);
  if (out) {
    const text = JSON.stringify({ messages: transcript.messages, needles: transcript.needles }, null, 2) +
      "\n";
    try {
      await writeFileAtomic(out, new TextEncoder().encode(text));
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("refusing")) {
        throw new UsageError(`${flag} ${out} already exists; nothing was written`);
      }
      throw inputError(error, out, flag);
    }
  }
  console.log(
    `${transcript.hash}  ${transcript.messages.length} messages, ${transcript.needles.length} needles`,
  );
  return 0;
}

async function run(argv: string[]): Promise<number> {
  const { options, positionals } = parseOptions("engines run", argv, EnginesRunShape);
  if (options.help) return printHelp(RUN_HELP);
  if (positionals.length > 0) throw new UsageError(`engines run: unexpected argument '${positionals[0]}'`);
  await enginesRunCommand(options, runInvocation(ENGINES_SUITE, argv, options));
  return 0;
}

export function enginesCommand(argv: string[]): Promise<number> {
  const usage = `${CLI} engines run|generate [options]   (see '${CLI} engines run --help')`;
  return dispatch("engines", argv, { run, generate }, usage);
}
