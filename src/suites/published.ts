/**
 * Published JSON files as node outputs: the exact bytes of `results.json` and `aggregate.json` are what an
 * aggregate node outputs (pretty-printed for people, I-JSON checked); `published-json` publishes a JSON file as
 * given (`protocol.json`, `check.json`): the document is its params, its inputs (by hash) what it accompanies.
 * @module
 */
import { canonicalJson, isIJson } from "../store/canonical.ts";
import { z } from "zod";
import type { Executor } from "../pipeline/executor.ts";
import { defineStage } from "../pipeline/stage.ts";
import type { RunDir } from "../store/run_dir.ts";
import { runHeaderParams, runHeaderStage } from "../pipeline/run_header.ts";

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

/** The `published-json` stage. */
export const publishedJsonStage = defineStage({
  name: "published-json",
  version: 1,
  doc: "A JSON file published as given (protocol.json, check.json): the document is the params.",
  params: z.object({ name: z.string(), document: z.unknown() }),
  inputs: ["of:*"],
  hashOnlyInputs: ["of:*"],
  outputs: {
    file: { schema: z.string(), kind: "text", doc: "the file's exact bytes (two-space JSON, final newline)" },
  },
  provider: false,
  run({ params }) {
    return Promise.resolve({ outputs: { file: publishedJson(params.document) } });
  },
});

/** The `of:<file>` inputs of the published files `of` (file name → blob hash). */
function ofInputs(of: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(of).map(([file, hash]) => [`of:${file}`, hash]));
}

/** Publishes `document` as the run's file `name`, through a `published-json` node below the files `of`. */
export async function publishJsonFile(
  executor: Executor,
  run: RunDir,
  name: string,
  document: unknown,
  of: Record<string, string> = {},
): Promise<void> {
  const params = { name, document };
  const node = await executor.runStage(publishedJsonStage, {
    label: `publish ${name}`,
    params,
    inputs: ofInputs(of),
  }, {});
  await run.publish(name, node.node.outputs.file);
}

/** Runs the `run-header` node below the files `of`; returns the input that binds a published file to it. */
export async function bindRunHeader(
  executor: Executor,
  run: RunDir,
  of: Record<string, string> = {},
): Promise<Record<string, string>> {
  const params = runHeaderParams(run.header);
  const node = await executor.runStage(
    runHeaderStage,
    { label: "run header", params, inputs: ofInputs(of) },
    {},
  );
  return { [runHeaderStage.name]: node.node.outputs.header };
}
