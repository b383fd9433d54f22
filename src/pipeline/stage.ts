/**
 * Typed stage declarations: name, version, params, inputs, outputs with zod schemas, provider flag and body;
 * outputs are canonical JSON or exact UTF-8 text (the published files).
 * @module
 */
import type { z } from "zod";
import type { CallRecord } from "../core/call_record.ts";
import type { BlobStore } from "../store/blob_store.ts";
import { canonicalBytes } from "../store/canonical.ts";

const encoder = new TextEncoder();

/** How an output (or an input) is stored: canonical JSON or exact UTF-8 text. */
export type BlobKind = "json" | "text";

/** How the body gets an input: parsed JSON, text, or the blob's bytes. */
export type InputKind = BlobKind | "bytes";

export interface OutputSpec<T = unknown> {
  /** Validates the value whenever it is read back from the store. */
  schema: z.ZodType<T>;
  /** One-sided fast check: true only for a value `schema` accepts (false leaves it to the schema). */
  plain?: (value: unknown) => boolean;
  /** `text`: exact UTF-8, given as a string or as bytes (one array or chunks, never joined). Default `json`. */
  kind?: BlobKind;
  /** False for an output too large to hand back: stored, null on every path; callers read its blob by hash. */
  held?: false;
  /** What the output holds (for the stage catalogue). */
  doc: string;
}

export type OutputSpecs = Record<string, OutputSpec>;

/** The values of declared outputs (null for an output not held: see {@link OutputSpec.held}). */
export type OutputValues<O extends OutputSpecs> = {
  [K in keyof O]: O[K] extends { held: false } ? null : z.infer<O[K]["schema"]>;
};

/** Whether `value` is a text output given as its UTF-8 bytes: one array, or chunks in order. */
export function isTextBytes(value: unknown): value is Uint8Array | readonly Uint8Array[] {
  return value instanceof Uint8Array || (Array.isArray(value) && value.every((c) => c instanceof Uint8Array));
}

/** The bytes an output value is stored as, in chunks: a text output's UTF-8, anything else canonical JSON. */
export function outputBytes(value: unknown, kind: BlobKind): readonly Uint8Array[] {
  if (kind === "text" && typeof value === "string") return [encoder.encode(value)];
  if (kind === "text" && isTextBytes(value)) return value instanceof Uint8Array ? [value] : value;
  return [canonicalBytes(value)];
}

/** The outputs a body may leave out: those whose schema accepts `undefined` (nothing is stored for them). */
type OmittableOutputs<O extends OutputSpecs> = {
  [K in keyof O]: undefined extends z.infer<O[K]["schema"]> ? K : never;
}[keyof O];

export interface StageResult<O extends OutputSpecs> {
  outputs:
    & { [K in Exclude<keyof O, OmittableOutputs<O>>]: unknown }
    & { [K in OmittableOutputs<O>]?: unknown };
  status?: "ok" | "invalid";
  reason?: string;
  requests?: CallRecord[];
}

export interface StageArgs<P, E> {
  /** The validated params (exactly what enters the node key). */
  params: P;
  inputs: Record<string, unknown>;
  hashes: Record<string, string>;
  /** Reads input `name` from the store (parsed JSON, or the text of a text input); for lazy inputs. */
  load(name: string): Promise<unknown>;
  /** The node key: outputs that could coincide with another node's carry it, so DAG edges are unambiguous. */
  key: string;
  env: E;
}

export interface StageDef<P = unknown, O extends OutputSpecs = OutputSpecs, E = unknown> {
  name: string;
  /** Bumped whenever the body, params or outputs change meaning (see docs/FORMAT.md, versioning). */
  version: number;
  /** One line on what the stage does (for the stage catalogue). */
  doc: string;
  params: z.ZodType<P>;
  /** Input names; a name ending in `*` is a family (`score:*` stands for every `score:<label>`). */
  inputs: readonly string[];
  textInputs?: readonly string[];
  /** Input names the body gets as the blob's bytes (a large file read in parts), neither decoded nor parsed. */
  bytesInputs?: readonly string[];
  /** Input names (or families) used by hash only: never read, the body gets null for them. */
  hashOnlyInputs?: readonly string[];
  /** Input names (or families) the body reads one at a time through {@link StageArgs.load} (flat memory). */
  lazyInputs?: readonly string[];
  outputs: O;
  /** True when the stage calls a model provider or measures time: `--rederive` does not re-execute it. */
  provider: boolean;
  /** False for stages that always run afresh, even when a frozen run has the same key. Default true. */
  reuseFrozen?: boolean;
  run(args: StageArgs<P, E>): Promise<StageResult<O>>;
}

/**
 * Declares a stage (an identity function that checks the declaration's type).
 * @example
 * ```ts
 * export const upperStage = defineStage({
 *   name: "example-upper", version: 1, doc: "The input text in upper case.", provider: false,
 *   params: z.object({}), inputs: ["text"], textInputs: ["text"],
 *   outputs: { upper: { schema: z.string(), kind: "text", doc: "the text, upper-cased" } },
 *   run: ({ inputs }) => Promise.resolve({ outputs: { upper: String(inputs.text).toUpperCase() } }),
 * });
 * ```
 */
export function defineStage<P, O extends OutputSpecs, E>(def: StageDef<P, O, E>): StageDef<P, O, E> {
  return def;
}

/** Whether an input name is declared by `names` (exactly, or by a `family*`). */
export function matchesInput(names: readonly string[], name: string): boolean {
  return names.some((n) => n.endsWith("*") ? name.startsWith(n.slice(0, -1)) : n === name);
}

/** The kind of input `name` of `def`. */
export function inputKind(def: StageDef<unknown, OutputSpecs, unknown>, name: string): InputKind {
  if (matchesInput(def.bytesInputs ?? [], name)) return "bytes";
  return matchesInput(def.textInputs ?? [], name) ? "text" : "json";
}

/** Reads blob `hash` as a body gets an input of `kind`: its bytes, its text, or its parsed JSON. */
export async function readInputBlob(store: BlobStore, hash: string, kind: InputKind): Promise<unknown> {
  if (kind === "bytes") return await store.get(hash);
  return kind === "text" ? await store.getText(hash) : await store.getJson(hash); // no copy of held bytes
}

/** Whether the body of `def` gets input `name` read in advance (false for hash-only and lazy inputs). */
export function readsInput(def: StageDef<unknown, OutputSpecs, unknown>, name: string): boolean {
  return !matchesInput(def.hashOnlyInputs ?? [], name) && !matchesInput(def.lazyInputs ?? [], name);
}

// deno-lint-ignore no-explicit-any
export type AnyStageDef = StageDef<any, OutputSpecs, any>;
