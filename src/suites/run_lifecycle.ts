/**
 * The life of one suite run: open (or resume) the run directory, hand an executor to the suite, seal the run
 * with its manifest, and on failure leave the journal resumable. Shared by every suite.
 *
 * @module
 */
import { Executor, type ExecutorOptions, FrozenRun } from "../pipeline/executor.ts";
import { Progress } from "../pipeline/progress.ts";
import { openRun, type OpenRunRequest } from "../cli/run_setup.ts";
import type { RunDir } from "../store/run_dir.ts";
import { UsageError } from "../errors.ts";
import { readManifest } from "../store/run_dir.ts";

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
}

/** Opens the frozen run named by `--frozen-run`, refusing a missing or unfinished one. */
export async function openFrozen(
  path: string | undefined,
  checkOnly: boolean,
): Promise<FrozenRun | undefined> {
  if (checkOnly && path === undefined) throw new UsageError("--check-only needs --frozen-run DIR");
  if (path === undefined) return undefined;
  await readManifest(path, "--frozen-run"); // a missing, unfinished or unreadable run is named as such
  return await FrozenRun.open(path);
}

/** Runs `body` inside a run directory and seals it. */
export async function withRun<T>(
  request: OpenRunRequest & { quiet?: boolean; frozen?: FrozenRun; checkOnly?: boolean },
  body: (context: RunContext) => Promise<T>,
): Promise<FinishedRun<T>> {
  const { run, resumed } = await openRun(request);
  const progress = new Progress(request.suite, { quiet: request.quiet });
  const options: ExecutorOptions = { progress, frozen: request.frozen, checkOnly: request.checkOnly };
  const executor = new Executor(run, options);
  if (resumed) progress.note(`resuming ${run.path}: ${run.nodes.length} completed node(s) in the journal`);
  let result: T;
  try {
    result = await body({ run, executor, progress, resumed });
  } catch (error) {
    progress.end();
    await run.abandon();
    progress.note(`run interrupted; continue it with --resume ${run.path}`);
    throw error;
  }
  progress.end();
  const { hash } = await run.finish();
  return { result, path: run.path, manifestHash: hash };
}
