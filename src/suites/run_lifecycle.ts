/**
 * The life of one suite run, written once for every suite: open (or resume) the run directory, record the
 * invocation (never a secret), hand an executor to the suite, publish its files, seal the run and close the
 * models. A library: it takes no argv apart and prints nothing; the CLI's {@link RunPrinter} shows the run.
 * @module
 */
import { bindRunHeader, publishedJsonStage, publishJsonFile } from "./published.ts";
import { join } from "node:path";
import { Executor, type ExecutorOptions } from "../pipeline/executor.ts";
import type { FrozenRun } from "../pipeline/frozen_run.ts";
import { Progress } from "../pipeline/progress.ts";
import { BlobIntegrityError } from "../store/blob_store.ts";
import { FrozenMismatchError } from "../pipeline/frozen_check.ts";
import { programIdentity, programSourceBlob } from "../program_identity.ts";
import { PROGRAM_SOURCE_NAME } from "../store/program_source.ts";
import { type Node, RUN_FORMAT, type RunHeader } from "../store/manifest.ts";
import { RunDir } from "../store/run_dir.ts";
import { checkNewOutputPath, statInputDirectory } from "../fs_input.ts";
import { heapBudget } from "../core/heap_budget.ts";
import { UsageError } from "../errors.ts";
import { stageDisplayName, type Suite } from "./suite.ts";
import type { ModelOptions } from "./model_setup.ts";
import { type NamedSecret, refuseSecretsInOptions } from "../core/secrets.ts";
import { foundRunSecrets, holdRunSecrets } from "../models/credentials.ts";
import { type AnsweringModels, modelChangeNotice } from "../core/answering_models.ts";
import { answeringModelsOf } from "../report/compare.ts";
import type { FailureTally } from "../pipeline/failures.ts";
import { redact } from "../models/credentials.ts";
import { cliCommand, retryCommandLine } from "../core/program_name.ts";
import { parseJson } from "../core/json_read.ts";

/** The answering models an aggregate.json names (none when it names none or is not JSON). */
function answeringOf(aggregateText: string): AnsweringModels {
  try {
    return answeringModelsOf(parseJson(aggregateText)) ?? {};
  } catch (error) {
    if (error instanceof SyntaxError) return {};
    throw error;
  }
}

/** The options of a run command every suite shares. */
export interface RunCommandOptions extends ModelOptions {
  output?: string;
  resume?: string;
  "frozen-run"?: string;
  "retry-failed"?: string;
  "check-only"?: boolean;
  quiet?: boolean;
}

/** What a suite body receives. */
export interface RunContext {
  run: RunDir;
  executor: Executor;
  progress: Progress;
  resumed: boolean;
}

/** The sealed run. */
export interface FinishedRun<T> {
  result: T;
  path: string;
  manifestHash: string;
  retried?: RetryOutcome;
  /** Nodes that failed for a provider or engine reason (not a method's honest invalidity). */
  failures: FailureTally;
}

/** What the CLI says of a finished run whose conditions failed for a provider or engine reason (exit 1). */
export interface FailedConditions {
  counts: [string, number][];
  total: number;
  /** The first failure's node label and error text, redacted. */
  first: { label: string; error: string };
  /** The `--retry-failed` command line, or null for a suite whose runs start afresh (engines). */
  retry: string | null;
  rerun: string;
}

const MAX_ERROR_CHARS = 400;

/** The failed conditions of a finished run as the CLI shows them (null: none failed that way). */
export function failedConditions(
  failures: FailureTally,
  suite: Pick<Suite, "command" | "resumable">,
  argv: readonly string[],
  path: string,
  secrets: readonly string[],
): FailedConditions | null {
  if (failures.total === 0 || failures.first === undefined) return null;
  const words = [...suite.command, ...argv];
  let error = redact(failures.first.error, secrets).replace(/\s+/g, " ").trim();
  if (error.length > MAX_ERROR_CHARS) error = `${error.slice(0, MAX_ERROR_CHARS)}…`;
  const rerunWords = words.filter((w, i) =>
    !["--output", "-o", "--resume"].includes(w) &&
    !["--output", "-o", "--resume"].includes(words[i - 1]) && !/^--(output|resume)=/.test(w)
  );
  return {
    counts: [...failures.counts].sort((a, b) => b[1] - a[1]),
    total: failures.total,
    first: { label: failures.first.label, error },
    retry: suite.resumable === true ? retryCommandLine(words, path) : null,
    rerun: cliCommand(...rerunWords, "--output", `${path}-again`),
  };
}

/** A fresh default output path under `runs/`. */
export function defaultOutputPath(suite: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").replace(/Z$/, "");
  return join("runs", `${suite}-${stamp}-${crypto.randomUUID().slice(0, 8)}`);
}

/** What a suite passes to open its run. */
interface OpenRunRequest {
  suite: string;
  output?: string;
  resume?: string;
  command: string[];
  options: unknown;
  protocol: unknown;
  tokenizer: { name: string; hash: string } | null;
  /** The run's sources; the object is emptied once they are stored (a large source is not held meanwhile). */
  sources?: Record<string, Uint8Array>;
  shard?: { index: number; count: number };
  /** `--retry-failed RUN`: its ok nodes are reused and failed nodes executed again. */
  retry?: FrozenRun;
}

/** Creates the run directory (exclusively) or resumes an unfinished one. */
export async function openRun(request: OpenRunRequest): Promise<{ run: RunDir; resumed: boolean }> {
  if (request.resume !== undefined) {
    if (request.output !== undefined) throw new UsageError("--resume and --output cannot be combined");
    await statInputDirectory(request.resume, "--resume");
    const run = await RunDir.resume(request.resume, {
      program: await programIdentity(),
      tokenizer: request.tokenizer,
      protocol: request.protocol,
      shard: request.shard,
    });
    if (run.header.suite !== request.suite) {
      await run.abandon();
      throw new UsageError(`${request.resume} is a '${run.header.suite}' run, not '${request.suite}'`);
    }
    return { run, resumed: true };
  }
  const header: Omit<RunHeader, "sources"> = {
    format: RUN_FORMAT,
    program: await programIdentity(),
    suite: request.suite,
    invocation: { command: request.command, options: request.options },
    tokenizer: request.tokenizer,
    protocol: request.protocol,
    created: new Date().toISOString(),
    ...(request.shard !== undefined ? { shard: request.shard } : {}),
    ...(request.retry !== undefined
      ? {
        retried_from: {
          run: request.retry.path,
          manifest: request.retry.manifestHash,
          failed_nodes: failedNodes(request.retry).length,
        },
      }
      : {}),
  };
  const path = request.output ?? defaultOutputPath(request.suite);
  await checkNewOutputPath(path, "--output");
  // The program's own source files are kept in every run, bound by the header (store/program_source.ts).
  const run = await RunDir.create(path, header, {
    ...request.sources,
    [PROGRAM_SOURCE_NAME]: programSourceBlob(),
  });
  return { run, resumed: false };
}

/** Refuses (exit 2, before anything is written) an adapter kept as a run source that holds a key of the run. */
function refuseSecretsInAdapters(sources: Record<string, Uint8Array>): void {
  for (const [name, bytes] of Object.entries(sources)) {
    if (!name.startsWith("adapter:")) continue;
    const found = foundRunSecrets(new TextDecoder().decode(bytes));
    if (found.length > 0) {
      throw new UsageError(
        `${name.slice("adapter:".length)}: holds the value of ${found.map((s) => s.name).join(", ")} (not ` +
          `shown); a run keeps the adapters its engines and agents use, and never a key: pass it with ` +
          `--engine-env or --agent-env instead`,
      );
    }
  }
}

/** The nodes of a finished run that did not finish ok (what `--retry-failed` executes again). */
export function failedNodes(run: FrozenRun): Node[] {
  return run.manifest.nodes.filter((node) => node.status !== "ok");
}

/** The printer of a run nobody watches (a test's): a silent progress display, no notes, no signal handling. */
const SILENT_PRINTER: Pick<RunPrinter, "progress" | "note" | "writing"> = {
  progress: (title) => new Progress(title, { quiet: true }),
  note: () => {},
  writing: () => () => {},
};

/** Runs `body` inside a run directory and seals it (the life cycle without publishing or printing). */
export async function withRun<T>(
  request: OpenRunRequest & {
    quiet?: boolean;
    frozen?: FrozenRun;
    checkOnly?: boolean;
    suiteDef?: Suite;
    printer?: Pick<RunPrinter, "progress" | "note" | "writing">;
  },
  body: (context: RunContext) => Promise<T>,
): Promise<FinishedRun<T>> {
  const { run, resumed } = await openRun(request);
  // Handed over: the run holds its sources as blobs, and a large one (a corpus) is not kept through the run.
  const handed = Object.keys(request.sources ?? {});
  for (const name of handed) delete request.sources![name];
  // Collected now: a suite that reads a large source back (a corpus) would otherwise hold it twice.
  if (handed.length > 0) heapBudget.collect();
  const suite = request.suiteDef;
  const printer = request.printer ?? SILENT_PRINTER;
  const progress = printer.progress(
    suite?.title ?? request.suite,
    request.quiet ?? false,
    suite ? (stage) => stageDisplayName(suite, stage) : undefined,
  );
  const { frozen, checkOnly, retry } = request;
  const frozenStrict = frozen !== undefined && checkOnly !== true;
  const executor = new Executor(
    run,
    { progress, frozen, checkOnly, frozenStrict, retry } satisfies ExecutorOptions,
  );
  const unregister = printer.writing(suite, run.path);
  if (resumed) printer.note(progress, { kind: "resumed", path: run.path, nodes: run.nodeCount });
  if (retry) {
    printer.note(progress, { kind: "retrying", from: retry.path, failed: failedNodes(retry).length });
  }
  if (run.takenOverFrom) printer.note(progress, { kind: "took-over", pid: run.takenOverFrom.pid });
  let result: T;
  try {
    result = await body({ run, executor, progress, resumed });
  } catch (error) {
    unregister();
    progress.end();
    await run.abandon();
    if ((error instanceof FrozenMismatchError || error instanceof BlobIntegrityError) && !resumed) {
      // A refusal writes nothing: once every started execution has finished, the new directory goes.
      await executor.settled();
      await Deno.remove(run.path, { recursive: true });
      throw error;
    }
    printer.note(progress, { kind: "interrupted", suite, path: run.path });
    throw error;
  }
  unregister();
  progress.end();
  const retried: RetryOutcome | undefined = retry
    ? {
      from: retry.path,
      failed: failedNodes(retry).length,
      executed: executor.counts.executed,
      sameKey: executor.counts.retried,
      reused: executor.counts.retry_reused,
    }
    : undefined;
  const { hash } = await run.finish();
  return {
    result,
    path: run.path,
    manifestHash: hash,
    failures: executor.failures,
    ...(retried !== undefined ? { retried } : {}),
  };
}

/** What `--check-only` found: answer inputs compared with the frozen run's, by label. */
export interface CheckOnlyReport {
  compared: number;
  differing: string[];
  missing: string[];
}

/** What a suite's body returns to the life cycle. */
export interface SuiteOutcome<T> {
  result: T;
  /** Published files that are node outputs: name → blob hash (published byte for byte). */
  files: Record<string, string>;
  /** Files exported as they are, and JSON files (each published through a `published-json` node). */
  raw?: Record<string, Uint8Array>;
  json?: Record<string, unknown>;
  /** The check-only comparison (published as check.json and printed). */
  check?: CheckOnlyReport | null;
  /** Lines printed before the run's path (default: the suite's summary of its aggregate.json). */
  lines?: string[];
}

/**
 * What `--retry-failed` did: the retried run `from` and its `failed` nodes; the nodes this run `executed`
 * (the failed ones met with the same key, `sameKey`, and those with new inputs); the nodes `reused`.
 */
export interface RetryOutcome {
  from: string;
  failed: number;
  executed: number;
  sameKey: number;
  reused: number;
}

/** What the life cycle has to say on the way (the printer words it; `interrupted`: the run failed or stopped). */
export type RunNote =
  | { kind: "resumed"; path: string; nodes: number }
  | { kind: "retrying"; from: string; failed: number }
  | { kind: "took-over"; pid: number }
  | { kind: "interrupted"; suite: Suite | undefined; path: string };

/** How the CLI shows a run (`src/cli/run_printer.ts`): the life cycle hands it what it has to say as data. */
export interface RunPrinter {
  progress(title: string, quiet: boolean, names?: (stage: string) => string): Progress;
  note(progress: Progress, note: RunNote): void;
  /** While the run at `path` is written (until the returned function is called): what a signal says. */
  writing(suite: Suite | undefined, path: string): () => void;
  /** A run that answered (may throw to set exit code 1 when conditions failed). */
  finished(
    run: {
      lines: readonly string[];
      path: string;
      report: boolean;
      retried?: RetryOutcome;
      failed?: FailedConditions | null;
    },
  ): void;
  /** A check-only run (`runPath` null: not kept); may throw to set the exit code when an answer input differs. */
  checkOnly(check: CheckOnlyReport, frozenPath: string | undefined, runPath: string | null): void;
}

/** How the CLI invoked a run (`src/cli/run_setup.ts`): no word or value may hold a secret. */
export interface RunInvocation {
  argv: readonly string[];
  options: Readonly<Record<string, unknown>>;
  /** The command words and options the run header records (never `--env-file`, its path, `--resume`). */
  command: string[];
  recordedOptions: Record<string, unknown>;
  printer: RunPrinter;
}

/** One run of a suite, as the CLI asks for it. */
export interface SuiteRunRequest
  extends
    Pick<OpenRunRequest, "output" | "resume" | "protocol" | "tokenizer" | "sources" | "shard" | "retry"> {
  suite: Suite;
  invocation: RunInvocation;
  quiet?: boolean;
  frozen?: FrozenRun;
  checkOnly?: boolean;
  /** The models of the run: their secrets are never recorded; they are closed when the run ends. */
  models?: { secrets: NamedSecret[]; close(): Promise<void> };
  /** Other secrets of the run (`--engine-env`, `--agent-env` values): no option may hold one. */
  secrets?: NamedSecret[];
}

/** Runs a suite: the whole life cycle (open, body, publish, seal, close, print). */
export async function runSuite<T>(
  request: SuiteRunRequest,
  body: (context: RunContext) => Promise<SuiteOutcome<T>>,
): Promise<FinishedRun<T>> {
  const { suite } = request;
  // A check-only run without --output is a check, not a run to keep: written to a temporary folder.
  const temporary = request.checkOnly && request.output === undefined && request.resume === undefined
    ? await Deno.makeTempDir({ prefix: "compaction-bench-check-only-" })
    : undefined;
  const secrets = [...(request.models?.secrets ?? []), ...(request.secrets ?? [])];
  try {
    // An option value that holds a secret is refused before anything is written.
    const { options, argv } = request.invocation;
    refuseSecretsInOptions(options, argv, secrets, (message) => new UsageError(message));
    holdRunSecrets(secrets);
    refuseSecretsInAdapters(request.sources ?? {});
    const finished = await withRun(
      {
        ...request,
        suite: suite.name,
        suiteDef: suite,
        output: temporary !== undefined ? join(temporary, "run") : request.output,
        command: request.invocation.command,
        options: request.invocation.recordedOptions,
        printer: request.invocation.printer,
      },
      async (context) => {
        const outcome = await body(context);
        const published = { ...outcome.json, ...(outcome.check ? { "check.json": outcome.check } : {}) };
        const aggregate = outcome.files["aggregate.json"];
        const below: Record<string, string> = aggregate ? { "aggregate.json": aggregate } : {};
        // The header's options and protocol are bound into the DAG, and every published JSON file below them.
        const header = await bindRunHeader(context.executor, context.run, below);
        context.progress.plan(publishedJsonStage.name, Object.keys(published).length);
        for (const [name, value] of Object.entries(published)) {
          await publishJsonFile(context.executor, context.run, name, value, { ...below, ...header });
        }
        for (const [name, bytes] of Object.entries(outcome.raw ?? {})) {
          await context.run.writeFile(name, bytes);
        }
        for (const [name, hash] of Object.entries(outcome.files)) await context.run.publish(name, hash);
        const aggregateText = aggregate ? await context.run.store.getText(aggregate) : undefined;
        const lines = outcome.lines ?? (aggregateText !== undefined ? suite.summary(aggregateText) : []);
        // A run answered by two models in one role says so on its first screen (and at the top of its reports).
        const changed = aggregateText !== undefined ? modelChangeNotice(answeringOf(aggregateText)) : null;
        if (changed) lines.unshift(`note: ${changed}`);
        return { outcome, lines };
      },
    );
    const { outcome, lines } = finished.result;
    if (outcome.check) {
      request.invocation.printer.checkOnly(
        outcome.check,
        request.frozen?.path,
        temporary !== undefined ? null : finished.path,
      );
    } else {
      request.invocation.printer.finished({
        lines,
        path: finished.path,
        report: outcome.files["REPORT.md"] !== undefined,
        retried: finished.retried,
        failed: failedConditions(
          finished.failures,
          suite,
          request.invocation.argv,
          finished.path,
          secrets.map((s) => s.value),
        ),
      });
    }
    return { ...finished, result: outcome.result };
  } finally {
    await request.models?.close();
    if (temporary !== undefined) await Deno.remove(temporary, { recursive: true });
  }
}
