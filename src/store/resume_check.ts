/**
 * Whether a run may be resumed: program, tokenizer, protocol and shard must be the ones its header records.
 * @module
 */
import { canonicalJson } from "./canonical.ts";
import type { RunHeader } from "./manifest.ts";

/** What the resuming invocation would record in a new header (a shard's part included). */
export type ResumeExpectation = Pick<RunHeader, "program" | "tokenizer" | "protocol" | "shard">;

function show(value: unknown): string {
  const text = value === undefined ? "absent" : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The first place where two JSON values differ, as `path: recorded vs now`, or undefined when equal. */
function firstDifference(recorded: unknown, now: unknown, path: string): string | undefined {
  if (
    canonicalJson(recorded ?? null) === canonicalJson(now ?? null) &&
    (recorded === undefined) === (now === undefined)
  ) {
    return undefined;
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(recorded) && isObject(now)) {
    for (const key of [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort()) {
      const found = firstDifference(recorded[key], now[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  if (Array.isArray(recorded) && Array.isArray(now) && recorded.length === now.length) {
    for (let i = 0; i < recorded.length; i++) {
      const found = firstDifference(recorded[i], now[i], `${path}[${i}]`);
      if (found) return found;
    }
  }
  return `${path}: run has ${show(recorded)}, this invocation ${show(now)}`;
}

/** Undefined when `expect` matches the header, else one line naming the first difference. */
export function resumeMismatch(header: RunHeader, expect: ResumeExpectation): string | undefined {
  for (const field of ["program", "tokenizer", "protocol", "shard"] as const) {
    const difference = firstDifference(header[field], expect[field], field);
    if (difference) return `the ${field} differs from the run's (${difference})`;
  }
  return undefined;
}
