/**
 * Published JSON files as node outputs: the exact bytes of `results.json` and `aggregate.json` are what an
 * aggregate node outputs (pretty-printed for people, I-JSON checked).
 * @module
 */
import { canonicalJson, isIJson } from "../store/canonical.ts";

/** Refuses a value that is not I-JSON, with `canonicalJson`'s error (the path to the bad value). */
function assertPublishable(value: unknown): void {
  if (!isIJson(value)) canonicalJson(value);
}

/** The text of a published JSON file (two-space indentation, final newline); refuses non-I-JSON values. */
export function publishedJson(value: unknown): string {
  assertPublishable(value);
  return JSON.stringify(value, null, 2) + "\n";
}

/** The text of one element of a published JSON array, as `publishedJson` indents it inside the array. */
export function publishedArrayElement(value: unknown): string {
  assertPublishable(value);
  const text = JSON.stringify([value], null, 2);
  return text.slice(2, -2); // without the array's "[\n" and "\n]"
}

/**
 * A published JSON array's UTF-8 bytes (those of `publishedJson` of the whole array) built element by element,
 * so a large array is never one tree of objects nor one string.
 */
export class PublishedArrayBytes {
  readonly #chunks: Uint8Array[] = [];
  readonly #encoder = new TextEncoder();

  /** Adds the next element; refuses a non-I-JSON value. */
  add(value: unknown): void {
    const separator = this.#chunks.length === 0 ? "[\n" : ",\n";
    this.#chunks.push(this.#encoder.encode(separator + publishedArrayElement(value)));
  }

  /** The array's bytes, in chunks (a text output may be given so: they are written in order, never joined). */
  chunks(): Uint8Array[] {
    if (this.#chunks.length === 0) return [this.#encoder.encode("[]\n")];
    return [...this.#chunks, this.#encoder.encode("\n]\n")];
  }
}

/** Input names of one answer row of an aggregate: `status:<row>`, `answer:<row>`, … */
export function rowInput(part: string, row: string): string {
  return `${part}:${row}`;
}

/** The row ids of an aggregate's inputs (every `status:<row>` input names one row). */
export function rowIds(inputs: Record<string, unknown>): string[] {
  return Object.keys(inputs).filter((n) => n.startsWith("status:")).map((n) => n.slice("status:".length));
}

/** The same record with its keys sorted (a node's inputs are journaled in this order). */
export function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
