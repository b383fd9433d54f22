/**
 * Sums of node usage, checked against what aggregates record (`Suite.rederive.usageProblems`).
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
