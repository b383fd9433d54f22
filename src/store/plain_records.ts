/**
 * Fast acceptance of the usual shapes of a run's records (a manifest node, a journal line) for `verify` and
 * resume, which read thousands. One-sided, as src/core/plain_check.ts: yes only for a value its zod schema
 * accepts and would return unchanged; a no decides nothing (the caller parses with the schema).
 *
 * @module
 */
import { isPrototypeName, type Node, OUTPUT_NAME } from "./manifest.ts";

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const SHA_TEXT = /^[0-9a-f]{64}$/;

/** A 64-character lower-case hex string (what the schemas' `Sha` accepts). */
export function isShaText(value: unknown): value is string {
  return typeof value === "string" && value.length === 64 && SHA_TEXT.test(value);
}

function isCount(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Every own key of `value` is in `allowed` (no `__proto__`, which a schema's output would not keep). */
function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

/** Name → hash, as NodeSchema's inputs (`outputs`: its output names, plain ones) accept. */
function isShaRecord(value: unknown, outputs = false): boolean {
  if (!isRecord(value)) return false;
  for (const key of Object.keys(value)) {
    if (isPrototypeName(key) || (outputs && !OUTPUT_NAME.test(key)) || !isShaText(value[key])) return false;
  }
  return true;
}

const NODE_KEYS = new Set([
  "key",
  "label",
  "stage",
  "version",
  "params",
  "inputs",
  "outputs",
  "requests",
  "usage",
  "started",
  "finished",
  "status",
  "reason",
  "reused_from",
]);
const USAGE_KEYS = new Set(["calls", "input_tokens", "output_tokens"]);
const REUSED_KEYS = new Set(["run", "manifest", "key"]);

/** True only when `NodeSchema` accepts `node` and would return it unchanged. */
export function isPlainNode(node: unknown): node is Node {
  if (!isRecord(node) || !onlyKeys(node, NODE_KEYS)) return false;
  if (!isShaText(node.key) || typeof node.label !== "string") return false;
  if (typeof node.stage !== "string" || node.stage.length === 0 || !isCount(node.version)) return false;
  if (!("params" in node) || !isShaRecord(node.inputs) || !isShaRecord(node.outputs, true)) return false;
  const requests = node.requests;
  if (!Array.isArray(requests)) return false;
  for (let i = 0; i < requests.length; i++) if (!(i in requests) || !isShaText(requests[i])) return false;
  const usage = node.usage;
  if (!isRecord(usage) || !onlyKeys(usage, USAGE_KEYS)) return false;
  if (!isCount(usage.calls) || !isCount(usage.input_tokens) || !isCount(usage.output_tokens)) return false;
  if (typeof node.started !== "string" || typeof node.finished !== "string") return false;
  if (node.status !== "ok" && node.status !== "invalid") return false;
  if ("reason" in node && typeof node.reason !== "string") return false;
  if ("reused_from" in node) {
    const from = node.reused_from;
    if (!isRecord(from) || !onlyKeys(from, REUSED_KEYS)) return false;
    if (typeof from.run !== "string" || !isShaText(from.key)) return false;
    if ("manifest" in from && !isShaText(from.manifest)) return false;
  }
  return true;
}

/**
 * The text `nodeKey` hashes, sliced from `text`, the canonical JSON of `node` (a node {@link isPlainNode}
 * accepts): its inputs and params are written there already. In canonical text a raw `},"key":"`,
 * `},"params":` or `,"requests":[` cannot lie inside a string, and inputs and outputs are flat.
 */
export function keyTextOfCanonical(node: Node, text: string): string {
  const inputsAt = `{"finished":${JSON.stringify(node.finished)},"inputs":`.length;
  const inputsEnd = text.indexOf('},"key":"', inputsAt) + 1;
  const paramsAt = text.indexOf('},"params":', inputsEnd) + 11;
  let paramsEnd = text.lastIndexOf(',"requests":[');
  if (node.reason !== undefined) paramsEnd -= `,"reason":${JSON.stringify(node.reason)}`.length;
  return `{"inputs":${text.slice(inputsAt, inputsEnd)},"params":${text.slice(paramsAt, paramsEnd)},"stage":${
    JSON.stringify(node.stage)
  },"version":${node.version}}`;
}

const NODE_LINE_KEYS = new Set(["type", "prev", "node"]);
const FILE_LINE_KEYS = new Set(["type", "prev", "name", "hash"]);

/**
 * True only when `JournalEntrySchema` accepts `entry` as a node or file line and would return it unchanged
 * (header lines, one per journal, are left to the schema).
 */
export function isPlainJournalLine(
  entry: unknown,
): entry is { type: "node"; prev: string; node: Node } | {
  type: "file";
  prev: string;
  name: string;
  hash: string;
} {
  if (!isRecord(entry) || !isShaText(entry.prev)) return false;
  if (entry.type === "node") return onlyKeys(entry, NODE_LINE_KEYS) && isPlainNode(entry.node);
  if (entry.type === "file") {
    return onlyKeys(entry, FILE_LINE_KEYS) && typeof entry.name === "string" && isShaText(entry.hash);
  }
  return false;
}
