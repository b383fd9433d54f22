/**
 * Sums of node usage as a suite's re-derivation checks them against the compression usage its aggregates and
 * reports record (`Suite.rederive.usageProblems`).
 *
 * @module
 */
import { addUsage, emptyUsage, type Usage } from "../core/usage.ts";
import type { Node } from "../store/manifest.ts";
import { canonicalJson } from "../store/canonical.ts";

/** The usage of `nodes` that did not come from a frozen run (those made their calls there). */
export function ownUsage(nodes: readonly Node[]): Usage {
  const total = emptyUsage();
  for (const node of nodes) if (node.reused_from === undefined) addUsage(total, node.usage);
  return total;
}

/** True when a recorded usage (any JSON) is exactly `b`. */
export const sameUsage = (a: unknown, b: Usage): boolean => canonicalJson(a ?? null) === canonicalJson(b);
