/**
 * The set-up every run command shares, written once: the frozen run, the tokenizer, the prices, the models and
 * the loopback endpoint; then the suite's checks and protocol, the retried run, and the run through the one
 * life cycle. Nothing is written before every check has passed; what only a frozen run, a retry or an endpoint
 * needs is imported when used (module loading is part of every start-up). The adapter files an outside engine
 * or agent uses are kept in the run as sources `adapter:<path>` (one over {@link MAX_ADAPTER_BYTES}: its hash).
 * @module
 */
import { readPrices } from "../analysis/read_prices.ts";
import type { PriceTable } from "../analysis/cost.ts";
import { CheckFailedError, UsageError } from "../errors.ts";
import { CLI } from "../core/program_name.ts";
import type { NamedSecret } from "../core/secrets.ts";
import type { LoopbackProxy } from "../models/loopback_proxy.ts";
import type { FrozenRun } from "../pipeline/frozen_run.ts";
import type { Shard } from "../pipeline/shard.ts";
import { sha256Hex } from "../store/hash.ts";
import { readManifest } from "../store/run_dir.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { type ModelSetup, setupModels } from "./model_setup.ts";
import {
  failedNodes,
  type FinishedRun,
  type RunCommandOptions,
  type RunContext,
  type RunInvocation,
  runSuite,
  type SuiteOutcome,
} from "./run_lifecycle.ts";
import type { Suite } from "./suite.ts";
import { readInputFile } from "../fs_input.ts";

/** Runs `check`; when it refuses, closes everything in `open` first, so bad input leaves no process behind. */
async function closingOnRefusal<T>(
  open: readonly ({ close(): Promise<void> } | null | undefined)[],
  check: () => T | Promise<T>,
): Promise<T> {
  try {
    return await check();
  } catch (error) {
    for (const resource of open) await resource?.close();
    throw error;
  }
}

/** Opens the frozen run named by `--frozen-run`, refusing a missing or unfinished one. */
async function openFrozen(path: string | undefined, checkOnly: boolean): Promise<FrozenRun | undefined> {
  if (checkOnly && path === undefined) throw new UsageError("--check-only needs --frozen-run DIR");
  if (path === undefined) return undefined;
  await readManifest(path, "--frozen-run"); // a missing, unfinished or unreadable run is named as such
  if (checkOnly) {
    // Check-only audits the frozen run (exit 1 when it does not verify); a copy's lost read-only modes do not count.
    const { formatProblem, verifyRun } = await import("../store/verify.ts");
    const report = await verifyRun(path, { strictModes: false });
    if (!report.ok) {
      throw new CheckFailedError(
        `--frozen-run ${path} does not verify (${report.problems.length} problem(s); first: ${
          formatProblem(report.problems[0])
        }); see '${CLI} verify ${path}'`,
      );
    }
  }
  return await (await import("../pipeline/frozen_run.ts")).FrozenRun.open(path);
}

/** Opens the frozen run of `suite` and checks that it can serve this run (see {@link Suite.checkFrozen}). */
async function openFrozenFor(
  suite: Suite,
  path: string | undefined,
  checkOnly: boolean,
  protocol: Record<string, unknown>,
): Promise<FrozenRun | undefined> {
  const frozen = await openFrozen(path, checkOnly);
  if (!frozen) return undefined;
  if (frozen.manifest.suite !== suite.name) {
    throw new UsageError(
      `--frozen-run ${frozen.path} is a '${frozen.manifest.suite}' run, not a ${suite.name} run`,
    );
  }
  const reason = suite.checkFrozen?.(frozen.manifest, protocol) ?? null;
  if (reason !== null) throw new UsageError(`${reason} of ${frozen.path}`);
  return frozen;
}

/** A protocol field as a person sets it: the option's spelling for the fields whose name says it. */
const PROTOCOL_FIELD_OPTIONS: Record<string, string> = {
  "models.chat_model": "chat model (--model)",
  "models.decision_model": "decision model (DECISION_MODEL_NAME)",
  "models.mode": "--reference/--live",
  inputCaps: "--input-cap",
  topN: "--top-n",
};

function optionOfField(path: string): string {
  return PROTOCOL_FIELD_OPTIONS[path] ??
    `--${path.split(".").at(-1)!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`).replaceAll("_", "-")}`;
}

/** Every field path (`a.b`) where two protocols differ (descriptions, `models.note`, are not compared). */
function protocolDifferences(ours: unknown, theirs: unknown, path = ""): string[] {
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v);
  if (isRecord(ours) && isRecord(theirs)) {
    const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].sort();
    return keys.flatMap((k) => {
      const at = path === "" ? k : `${path}.${k}`;
      return at === "models.note" ? [] : protocolDifferences(ours[k], theirs[k], at);
    });
  }
  return JSON.stringify(ours) === JSON.stringify(theirs) ? [] : [path];
}

/** Refuses the options `--retry-failed` cannot be given with (call it before any of them is acted on). */
export function refuseWithRetry(given: RunCommandOptions & { shard?: unknown }): void {
  if (given["retry-failed"] === undefined) return;
  for (const other of ["frozen-run", "check-only", "shard"] as const) {
    if (given[other] !== undefined) {
      throw new UsageError(
        `--retry-failed and --${other} cannot be combined (a retry reuses the retried run's own nodes)`,
      );
    }
  }
}

/**
 * Opens the run named by `--retry-failed RUN`: refused (exit 2) when RUN is unfinished, of another suite, has no
 * failed node, or an option that enters a key differs from RUN's (naming it and both values).
 */
async function openRetried(
  suite: Suite,
  given: RunCommandOptions & { shard?: unknown },
  ours: { protocol: unknown; tokenizerHash: string | null; sources: Record<string, string> },
): Promise<FrozenRun | undefined> {
  const path = given["retry-failed"];
  if (path === undefined) return undefined;
  refuseWithRetry(given);
  await readManifest(path, "--retry-failed"); // a missing, unfinished or unreadable run is named as such
  const retried = await (await import("../pipeline/frozen_run.ts")).FrozenRun.open(path);
  const manifest = retried.manifest;
  if (manifest.suite !== suite.name) {
    throw new UsageError(`--retry-failed ${path} is a '${manifest.suite}' run, not a ${suite.name} run`);
  }
  if (manifest.shard !== undefined) {
    throw new UsageError(`--retry-failed ${path} is a shard; retry the shards before merging them`);
  }
  const differing: string[] = protocolDifferences(ours.protocol, manifest.protocol).map((field) => {
    const value = (p: unknown) => {
      const v = field.split(".").reduce((v: unknown, k) => (v as Record<string, unknown>)?.[k], p);
      if (v === undefined) return "(not set)";
      return Array.isArray(v) ? v.join(",") : typeof v === "string" ? v : JSON.stringify(v);
    };
    return `${optionOfField(field)} ${value(ours.protocol)} differs from the retried run's ${
      value(manifest.protocol)
    }`;
  });
  if ((manifest.tokenizer?.hash ?? null) !== ours.tokenizerHash) {
    differing.push(
      `--tokenizer (hash) ${ours.tokenizerHash} differs from the retried run's ${manifest.tokenizer?.hash}`,
    );
  }
  for (const [name, hash] of Object.entries(ours.sources)) {
    if (manifest.sources[name] !== hash) {
      differing.push(
        `--${name} (sha256 ${hash.slice(0, 12)}) differs from the retried run's (${
          (manifest.sources[name] ?? "none").slice(0, 12)
        })`,
      );
    }
  }
  if (differing.length > 0) {
    throw new UsageError(
      `--retry-failed ${path}: ${
        differing.join("; ")
      }. A retry keeps the retried run's protocol (its nodes are ` +
        `reused by key): give its options, or start a new run without --retry-failed`,
    );
  }
  if (failedNodes(retried).length === 0) {
    throw new UsageError(
      `--retry-failed ${path}: every node of the run finished ok; there is nothing to retry`,
    );
  }
  return retried;
}

/** The options the shared set-up reads: every run command's, and the ones only some commands take. */
interface RunSetupOptions extends RunCommandOptions {
  tokenizer?: string;
  shard?: Shard;
  price?: { model: string; input: number; output: number }[];
  prices?: string;
}

/** The models of a set-up: always, or (a collection that may call none) only when asked for. */
type ModelsOf<W extends boolean> = W extends true ? ModelSetup : ModelSetup | null;

/** What is open once the shared steps have passed, handed to the suite's checks and its body. */
interface RunSetup<W extends boolean = true> {
  checkOnly: boolean;
  frozen: FrozenRun | undefined;
  counter: TokenCounter;
  prices: PriceTable | null;
  models: ModelsOf<W>;
  /** The loopback endpoint outside engines and agents reach the chat model through (when asked for). */
  endpoint: LoopbackProxy | undefined;
}

/** What a suite's checks give: the run's protocol, secrets no option may hold, and what its body needs. */
interface PreparedRun<X> {
  protocol: unknown;
  secrets?: NamedSecret[];
  value: X;
}

/** A run command's suite-specific pieces (its inputs are checked before it calls {@link runSuiteCommand}). */
interface SuiteCommand<X, T, W extends boolean = true> {
  suite: Suite;
  options: RunSetupOptions;
  invocation: RunInvocation;
  /** The run options a frozen run must suit (`Suite.checkFrozen`); absent: the command takes none. */
  frozenFor?: Record<string, unknown>;
  /** Checks made once the tokenizer is loaded, before the models are set up. */
  afterTokenizer?(counter: TokenCounter): void | Promise<void>;
  /** Whether the run reads `--price` and `--prices` (default: no), sets up models (default: yes). */
  prices?: boolean;
  models?: W;
  /** Whether an outside engine or agent reaches the chat model through the loopback endpoint. */
  endpoint?: boolean;
  sources: Record<string, Uint8Array>;
  /** The suite's checks once the models are open (a refusal closes them) and the run's protocol. */
  prepare(setup: RunSetup<W>): PreparedRun<X> | Promise<PreparedRun<X>>;
  run(context: RunContext, setup: RunSetup<W>, value: X): Promise<SuiteOutcome<T>>;
}

/** Sets up a suite's run and runs it through the one life cycle. */
export async function runSuiteCommand<X, T, W extends boolean = true>(
  command: SuiteCommand<X, T, W>,
): Promise<FinishedRun<T>> {
  const { suite, options } = command;
  // The adapters an outside engine or agent uses are kept in the run beside the program's own source.
  Object.assign(command.sources, await adapterSources(options as Record<string, unknown>));
  const checkOnly = options["check-only"] === true;
  const frozen = command.frozenFor === undefined
    ? undefined
    : await openFrozenFor(suite, options["frozen-run"], checkOnly, command.frozenFor);
  const counter = await loadTokenCounter(options.tokenizer);
  await command.afterTokenizer?.(counter);
  const prices = command.prices ? await readPrices(options) : null;
  const models =
    (command.models === false
      ? null
      : await setupModels(options, counter, checkOnly, frozen?.manifest.protocol)) as ModelsOf<W>;
  const endpoint = command.endpoint && models?.chatEndpoint
    ? (await import("../models/loopback_proxy.ts")).startLoopbackProxy(models.chatEndpoint)
    : undefined;
  const open = [endpoint, models];
  const setup: RunSetup<W> = { checkOnly, frozen, counter, prices, models, endpoint };
  const prepared = await closingOnRefusal(open, () => command.prepare(setup));
  // A run whose nodes failed is retried as a new run that reuses every node finished well there.
  const retry = await closingOnRefusal(open, () =>
    openRetried(suite, options, {
      protocol: prepared.protocol,
      tokenizerHash: counter.hash,
      sources: options["retry-failed"] === undefined ? {} : Object.fromEntries(
        Object.entries(command.sources).map(([name, bytes]) => [name, sha256Hex(bytes)]),
      ),
    }));
  return await runSuite(
    {
      suite,
      invocation: command.invocation,
      output: options.output,
      resume: options.resume,
      quiet: options.quiet,
      frozen,
      retry,
      checkOnly,
      protocol: prepared.protocol,
      tokenizer: { name: counter.name, hash: counter.hash },
      sources: command.sources,
      shard: options.shard,
      models: models ?? undefined,
      secrets: prepared.secrets,
    },
    (context) => command.run(context, setup, prepared.value),
  ).finally(() => endpoint?.close());
}

/** Largest adapter file kept in a run (bytes). */
const MAX_ADAPTER_BYTES = 4 * 1024 * 1024;

/** The engine and agent specs of a run's options. */
function specs(options: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (value: unknown, named: boolean) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== "string") continue;
      // `--method NAME=SPEC`: the spec after a name that is not itself part of a command.
      const at = named ? item.indexOf("=") : -1;
      const spec = at > 0 && !item.slice(0, at).includes(":") ? item.slice(at + 1) : item;
      out.push(spec);
    }
  };
  add(options.engine, false);
  add(options.method, true);
  add(options.agent, false);
  return out;
}

/** The run sources `adapter:<path>` of the adapter files the options' engines and agents use. */
export async function adapterSources(options: Record<string, unknown>): Promise<Record<string, Uint8Array>> {
  const given = specs(options);
  if (given.length === 0) return {};
  const { adapterHashes } = await import("../methods/engine_method.ts");
  const sources: Record<string, Uint8Array> = {};
  for (const spec of given) {
    let files: string[];
    try {
      files = Object.keys(await adapterHashes(spec));
    } catch (error) {
      // A spec the suite refuses is refused there, with its own message.
      if (error instanceof UsageError) continue;
      throw error;
    }
    for (const file of files) {
      const info = await Deno.stat(file);
      if (info.size > MAX_ADAPTER_BYTES) continue;
      sources[`adapter:${file}`] = await readInputFile(file, "an engine's adapter");
    }
  }
  return sources;
}
