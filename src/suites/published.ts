/**
 * Published JSON files as node outputs: the exact bytes of `results.json` and `aggregate.json` are what an
 * aggregate node outputs (pretty-printed for people, I-JSON checked), so the file's blob is a node output.
 *
 * @module
 */
import { canonicalJson } from "../store/canonical.ts";

/** The text of a published JSON file (two-space indentation, final newline); refuses non-I-JSON values. */
export function publishedJson(value: unknown): string {
  canonicalJson(value);
  return JSON.stringify(value, null, 2) + "\n";
}

/**
 * The text of one element of a published JSON array, as `publishedJson` would indent it inside the array;
 * refuses a non-I-JSON value. {@link publishedArray} joins such texts: a large array (every answer row of a
 * run) is built element by element, never as one tree of objects.
 */
export function publishedArrayElement(value: unknown): string {
  canonicalJson(value);
  const text = JSON.stringify([value], null, 2);
  return text.slice(2, -2); // without the array's "[\n" and "\n]"
}

/** The text of a published JSON array from its elements' texts: equal to `publishedJson` of the array. */
export function publishedArray(elements: readonly string[]): string {
  return elements.length === 0 ? "[]\n" : `[\n${elements.join(",\n")}\n]\n`;
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
