/**
 * "Frozen means frozen": with `--frozen-run DIR` every summary and ranking comes from the frozen run and no new
 * compression call is made; mismatches are {@link UsageError}s (exit 2).
 * @module
 */
import { UsageError } from "../errors.ts";
import type { Node } from "../store/manifest.ts";
import type { FrozenRun } from "./frozen_run.ts";
import { retryCommandLine } from "../core/program_name.ts";

/** A compression node needed by this run is not in the frozen run, or failed there after provider calls. */
export class FrozenMismatchError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = "FrozenMismatchError";
  }
}

/** One protocol value that enters compression keys: the option as spelled, ours and the frozen run's. */
export interface FrozenOption {
  option: string;
  ours: unknown;
  frozen: unknown;
}

function show(value: unknown): string {
  if (value === undefined) return "(not recorded)";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Refuses when options entering a summary or ranking key differ from the frozen run's, naming each. */
export function assertFrozenProtocol(frozen: FrozenRun, options: readonly FrozenOption[]): void {
  const differing = options.filter((o) => !same(o.ours, o.frozen));
  if (differing.length === 0) return;
  const what = differing.map((o) =>
    `${o.option} ${show(o.ours)} differs from the frozen run's ${show(o.frozen)}`
  )
    .join("; ");
  throw new FrozenMismatchError(
    `--frozen-run ${frozen.path}: ${what}. A frozen run reuses its summaries and rankings exactly and makes ` +
      `no new compression call: use the frozen run's values, or run without --frozen-run`,
  );
}

/** True for a node that failed after provider calls (its outcome came from a provider, not from its inputs). */
export function failedWithCalls(node: Node): boolean {
  return node.status === "invalid" && node.requests.length > 0;
}

/** Refuses a frozen run whose compression nodes (`used`) failed after provider calls (a redo is a new call). */
export function assertNoFailedCompression(frozen: FrozenRun, used: (node: Node) => boolean): void {
  const failed = frozen.manifest.nodes.filter((n) => used(n) && failedWithCalls(n));
  if (failed.length === 0) return;
  const shown = failed.slice(0, 3).map((n) => `${n.label} (${n.reason ?? "failed"})`).join("; ");
  const more = failed.length > 3 ? `; and ${failed.length - 3} more` : "";
  throw new FrozenMismatchError(
    `--frozen-run ${frozen.path}: ${failed.length} summary/ranking node(s) failed there: ${shown}${more}. ` +
      `A frozen run never reuses a failed node and makes no new compression call: ${recoverHint(frozen)}`,
  );
}

/** The hint for a frozen run whose compression failed: `--retry-failed` it and freeze that, or don't freeze. */
export function recoverHint(frozen: FrozenRun): string {
  const retry = retryCommandLine(frozen.manifest.invocation.command, frozen.path);
  return `recover its failed nodes first with '${retry}' (with --env-file FILE if it used one) and freeze ` +
    `that run, or run without --frozen-run`;
}
