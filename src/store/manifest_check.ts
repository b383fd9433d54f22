/**
 * Bounded schema checks of a parsed `manifest.json` for `verify`: nodes one at a time, problems capped.
 * @module
 */
import { type Manifest, ManifestSchema, NodeSchema } from "./manifest.ts";

/** The most schema problems named for one manifest; the rest are counted in one line. */
export const MAX_MANIFEST_ISSUES = 100;

/** One schema problem: the dotted path of the field (`(root)` for the whole value) and what is wrong. */
export interface ManifestIssue {
  path: string;
  message: string;
}

/** The number of lines in a journal's bytes (a last line without `\n` counts): a bound on the node count. */
export function journalLineCount(bytes: Uint8Array): number {
  let lines = 0;
  let at = 0;
  while (at < bytes.length) {
    const next = bytes.indexOf(10, at);
    lines++;
    if (next < 0) break;
    at = next + 1;
  }
  return lines;
}

/** What is wrong with a parsed manifest's node count (more than the journal's lines), or null. */
export function nodeCountProblem(value: unknown, journalLines: number | undefined): string | null {
  if (journalLines === undefined || value === null || typeof value !== "object") return null;
  const nodes = Object.hasOwn(value, "nodes") ? (value as { nodes?: unknown }).nodes : undefined;
  if (!Array.isArray(nodes) || nodes.length === 0 || nodes.length < journalLines) return null;
  return `holds ${nodes.length} nodes, the journal only ${journalLines} lines (a header and at most ` +
    `${Math.max(0, journalLines - 1)} nodes): its nodes are not checked one by one`;
}

/**
 * `value` checked against {@link ManifestSchema}, head first, then each node alone: the manifest, or at most
 * {@link MAX_MANIFEST_ISSUES} problems (and a line counting the rest).
 * @example
 * ```ts
 * checkManifestSchema({ nodes: [{}, {}] }).issues.length > 0; // true
 * ```
 */
export function checkManifestSchema(value: unknown): { manifest?: Manifest; issues: ManifestIssue[] } {
  const issues: ManifestIssue[] = [];
  let more = 0;
  const push = (path: PropertyKey[], message: string) => {
    if (issues.length < MAX_MANIFEST_ISSUES) {
      issues.push({ path: path.map(String).join(".") || "(root)", message });
    } else more++;
  };
  const nodes = value !== null && typeof value === "object" && Object.hasOwn(value, "nodes")
    ? (value as { nodes?: unknown }).nodes
    : undefined;
  if (!Array.isArray(nodes)) {
    const parsed = ManifestSchema.safeParse(value);
    if (parsed.success) return { manifest: parsed.data, issues };
    for (const issue of parsed.error.issues.slice(0, MAX_MANIFEST_ISSUES)) push(issue.path, issue.message);
    more += Math.max(0, parsed.error.issues.length - MAX_MANIFEST_ISSUES);
    return { issues: finish(issues, more) };
  }
  const head = ManifestSchema.safeParse({ ...(value as object), nodes: [] });
  if (!head.success) { for (const issue of head.error.issues) push(issue.path, issue.message); }
  const checked: Manifest["nodes"] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = NodeSchema.safeParse(nodes[i]);
    if (node.success) checked.push(node.data);
    else if (issues.length >= MAX_MANIFEST_ISSUES) more += node.error.issues.length;
    else for (const issue of node.error.issues) push(["nodes", i, ...issue.path], issue.message);
  }
  if (head.success && issues.length === 0) return { manifest: { ...head.data, nodes: checked }, issues };
  return { issues: finish(issues, more) };
}

function finish(issues: ManifestIssue[], more: number): ManifestIssue[] {
  if (more > 0) issues.push({ path: "(more)", message: `${more} more schema problem(s) not listed` });
  return issues;
}
