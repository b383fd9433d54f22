/**
 * "Frozen means frozen": with `--frozen-run DIR` every compression artifact (summary and ranking node) comes
 * from the frozen run and no new compression call is made. Two guards, both {@link UsageError}s (exit 2):
 *
 * 1. Before anything is written, the options that enter a compression node's key are compared with the frozen
 *    run's recorded protocol ({@link assertFrozenProtocol}: e.g. `--summary-allowance 3000 differs from the
 *    frozen run's 3200`), and a frozen run whose compression nodes failed after provider calls is refused
 *    ({@link assertNoFailedCompression}: redoing one would be a new call).
 * 2. While running, the executor refuses a compression node the frozen run lacks ({@link FrozenMismatchError})
 *    and the run directory this invocation created is removed. A frozen node that failed without a provider
 *    call (an invalid collection) is recomputed, which makes no call either, and said so.
 *
 * @module
 */
import { UsageError } from "../errors.ts";
import type { Node } from "../store/manifest.ts";
import type { FrozenRun } from "./frozen_run.ts";
import { retryCommandLine } from "../core/program_name.ts";

/** A compression node needed by this run is not in the frozen run, or failed there after provider calls. */
export class FrozenMismatchError extends UsageError {
  /** Creates the refusal; the message names the node or the option. */
  constructor(message: string) {
    super(message);
    this.name = "FrozenMismatchError";
  }
}

/** One protocol value that enters compression keys: how the option is spelled, ours and the frozen run's. */
export interface FrozenOption {
  /** The option as a user writes it, e.g. `--summary-allowance`, or a description (`chat model`). */
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

/**
 * Refuses (exit 2) when an option that enters a summary or ranking key differs from the frozen run's
 * recorded value, naming every such option.
 */
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

/**
 * Refuses (exit 2) a frozen run whose compression nodes (those `used` selects) failed after provider calls:
 * they are never reused, and recomputing them would be a new compression call.
 */
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

/**
 * What to do with a frozen run whose compression failed: recover it with `--retry-failed` (its own command,
 * as its header records it) and freeze the recovered run, or run without `--frozen-run`.
 */
export function recoverHint(frozen: FrozenRun): string {
  const retry = retryCommandLine(frozen.manifest.invocation.command, frozen.path);
  return `recover its failed nodes first with '${retry}' (with --env-file FILE if it used one) and freeze ` +
    `that run, or run without --frozen-run`;
}
