/**
 * Conditions that failed for a provider or engine reason (a failed call, an engine with no output at all), as
 * opposed to a method's honest invalidity: the CLI names them with the `--retry-failed` command and exits 1.
 * @module
 */
import type { CallRecord } from "../core/call_record.ts";
import type { Node } from "../store/manifest.ts";

export type FailureKind = "chat call" | "decision-model call" | "engine";

/** Reasons of an engine node that gave no output at all; any other reason is honest. */
const ENGINE_FAILURE_REASON =
  /cannot start|timed out after|exited with code|was killed by|: HTTP \d{3}|request failed|no provider available|No LLM provider/;

/** Why `node` failed for a provider or engine reason, or null (ok, or honestly invalid). */
export function failureOf(
  node: Pick<Node, "stage" | "status" | "reason">,
  records: readonly Pick<CallRecord, "status" | "endpoint" | "error">[],
): { kind: FailureKind; error: string } | null {
  if (node.status !== "invalid") return null;
  const failed = records.find((r) => r.status === "failed");
  if (failed !== undefined) {
    return {
      kind: failed.endpoint === "systemone" ? "decision-model call" : "chat call",
      error: failed.error ?? node.reason ?? "failed",
    };
  }
  const reason = node.reason ?? "";
  if (/engine$/.test(node.stage) && ENGINE_FAILURE_REASON.test(reason)) {
    return { kind: "engine", error: reason || "engine failed" };
  }
  return null;
}

/** The failures of a run, counted as its nodes are recorded (see {@link failureOf}). */
export class FailureTally {
  readonly counts = new Map<FailureKind, number>();
  /** The first failure met: the node's label and the error text (the CLI redacts it). */
  first: { label: string; error: string } | undefined;

  add(
    node: Pick<Node, "stage" | "status" | "reason" | "label">,
    records: readonly Pick<CallRecord, "status" | "endpoint" | "error">[],
  ): void {
    const failure = failureOf(node, records);
    if (failure === null) return;
    this.counts.set(failure.kind, (this.counts.get(failure.kind) ?? 0) + 1);
    this.first ??= { label: node.label, error: failure.error };
  }

  get total(): number {
    let n = 0;
    for (const count of this.counts.values()) n += count;
    return n;
  }
}
