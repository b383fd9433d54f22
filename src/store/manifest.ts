/**
 * The records of the manifest DAG (run header, nodes, manifest) and the node key.
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "./canonical.ts";
import { canonicalHash, sha256Hex } from "./hash.ts";
import { UsageSchema } from "../core/usage.ts";

/** Version tag of the on-disk formats described in docs/FORMAT.md. */
export const RUN_FORMAT = "compaction-bench/run@1";

const Sha = z.string().regex(/^[0-9a-f]{64}$/, "expected a lower-case SHA-256 hex digest");
const Json: z.ZodType<unknown> = z.unknown();

export { type Usage, UsageSchema } from "../core/usage.ts";

/** A name an object's prototype answers to (`__proto__`, `toString`, ...): never an input or output name. */
export function isPrototypeName(name: string): boolean {
  return name === "__proto__" || Object.hasOwn(Object.prototype, name);
}

/** A node output's name: a plain name (a letter, then letters, digits, `_`, `.`, `-`), no prototype name. */
export const OUTPUT_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

const OutputName = z.string().regex(OUTPUT_NAME, "not a plain output name").refine(
  (name) => !isPrototypeName(name),
  "a name of Object.prototype",
);
const InputName = z.string().refine((name) => !isPrototypeName(name), "a name of Object.prototype");

/** What is wrong with a parsed node's input and output names (before zod drops `__proto__`), or null. */
export function nodeNameProblem(raw: unknown): string | null {
  if (raw === null || typeof raw !== "object") return null;
  for (const field of ["inputs", "outputs"] as const) {
    const record = Object.hasOwn(raw, field) ? (raw as Record<string, unknown>)[field] : undefined;
    if (record === null || typeof record !== "object") continue;
    for (const name of Object.keys(record)) {
      if (isPrototypeName(name) || (field === "outputs" && !OUTPUT_NAME.test(name))) {
        return `${field === "inputs" ? "input" : "output"} name ${JSON.stringify(name)} is not a plain name`;
      }
    }
  }
  return null;
}

/** One stage execution in the DAG. */
export const NodeSchema = z.object({
  key: Sha,
  label: z.string(),
  stage: z.string().min(1),
  version: z.number().int().nonnegative(),
  params: Json,
  inputs: z.record(InputName, Sha),
  outputs: z.record(OutputName, Sha),
  requests: z.array(Sha),
  usage: UsageSchema,
  started: z.string(),
  finished: z.string(),
  status: z.enum(["ok", "invalid"]),
  reason: z.string().optional(),
  reused_from: z.object({ run: z.string(), manifest: Sha.optional(), key: Sha }).optional(),
});
export type Node = z.infer<typeof NodeSchema>;

/** What identifies a run before any stage runs; the journal's first line and the manifest's head. */
export const RunHeaderSchema = z.object({
  format: z.literal(RUN_FORMAT),
  program: z.object({ name: z.string(), version: z.string(), source_hash: Sha }),
  suite: z.string(),
  invocation: z.object({ command: z.array(z.string()), options: Json }),
  tokenizer: z.object({ name: z.string(), hash: Sha }).nullable(),
  protocol: Json,
  /** Declared source blobs (datasets, fixtures) by name. */
  sources: z.record(z.string(), Sha),
  created: z.string(),
  /** Set on a shard (`--shard K/N`): the part of the work this run did. Not part of the protocol. */
  shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }).optional(),
  /** Set by `--retry-failed RUN`: RUN's path, manifest hash and failed-node count (the rest copied). */
  retried_from: z.object({ run: z.string(), manifest: Sha, failed_nodes: z.number().int().positive() })
    .optional(),
  /** Set on a run made by `merge`: the shards it joined, in part order. */
  merged_from: z.array(z.object({
    run: z.string(),
    manifest: Sha,
    shard: z.object({ index: z.number().int().positive(), count: z.number().int().positive() }),
  })).optional(),
});
export type RunHeader = z.infer<typeof RunHeaderSchema>;

/** The manifest: the header, every node in completion order, the exported files, and the journal's digest. */
export const ManifestSchema = RunHeaderSchema.extend({
  finished: z.string(),
  nodes: z.array(NodeSchema),
  files: z.record(z.string(), Sha),
  journal: z.object({ lines: z.number().int().positive(), sha256: Sha }),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** The key of a stage execution: SHA-256 of canonical `{stage, version, params, inputs}`. */
export function nodeKey(
  stage: string,
  version: number,
  params: unknown,
  inputs: Record<string, string>,
): string {
  // Members in code-unit order, as the canonical text has them: written without a copy.
  return canonicalHash({ inputs, params, stage, version });
}

/** {@link nodeKey} from the params' canonical text already made (not serialized again). */
export function nodeKeyOfParamsText(
  stage: string,
  version: number,
  paramsText: string,
  inputs: Record<string, string>,
): string {
  return sha256Hex(
    `{"inputs":${canonicalJson(inputs)},"params":${paramsText},"stage":${canonicalJson(stage)},"version":${
      canonicalJson(version)
    }}`,
  );
}
