/**
 * The sweep case format: a folder holding `case.json` (validated by {@link SweepCaseSchema}), the trajectory
 * file it pins by SHA-256, a checks module (or the program's built-in payment gateway) and, optionally, a
 * reference repair. docs/SWEEP_CASES.md describes it with the shipped cases as examples.
 *
 * @module
 */
import { z } from "zod";

/** The `format` value of every case.json this program reads. */
export const SWEEP_CASE_FORMAT = "compaction-bench/sweep-case@1";

/** Where one evidence unit lies: `[start, end)` in the content of the tool message at `message_index`. */
export interface UnitBoundary {
  /** Stable unit id, in source order. */
  id: string;
  /** Index of the tool message in the trajectory. */
  message_index: number;
  /** First character (JavaScript string index, i.e. UTF-16 code unit) of the unit in that tool result. */
  start: number;
  /** One past the last character. */
  end: number;
}

/** One exact fact: a string that a correct answer must contain, and the unit that states it. */
export interface Fact {
  /** Short name of what the fact is (e.g. "deploy commit"). */
  name: string;
  /** The exact text an answer must contain. */
  text: string;
  /** Id of the evidence unit the fact is traced to. */
  unit: string;
}

/** The repair contract of a case: the function the follow-up asks for and the values its checks use. */
export interface CaseRepair {
  /** Name of the function the repair must define. */
  functionName: string;
  /** The exact signature the follow-up asks for (`async function NAME(A, B)`). */
  signature: string;
  /** The two parameter names of the signature (the client, the input). */
  params: [string, string];
  /** Values the checks hold a repair to (handed to the checks module; the payment gateway's own fields). */
  values: Record<string, unknown>;
}

/** The payment gateway's repair values (the built-in `payments-gateway` checks). */
export interface RepairSpec {
  /** Name of the function the repair must define. */
  functionName: string;
  /** The exact signature the follow-up asks for. */
  signature: string;
  /** Timeout every charge attempt must pass (`gateway.charge_timeout_ms`). */
  timeoutMs: number;
  /** Total attempts allowed for one charge (`retry.max_attempts`). */
  maxAttempts: number;
  /** A non-retryable gateway error code that must be surfaced unchanged. */
  nonRetryableCode: string;
  /** Error codes the config allows to retry (`retry.retry_on`). */
  retryableCodes: string[];
}

/** The values `checks: {builtin: "payments-gateway"}` needs in `repair.values`. */
export const PaymentsValuesSchema = z.object({
  timeoutMs: z.number().int().positive(),
  maxAttempts: z.number().int().positive(),
  nonRetryableCode: z.string().min(1),
  retryableCodes: z.array(z.string().min(1)),
}).strict();

/** A file of the case folder: a plain name beside case.json (no folders, no hidden files). */
const CaseFileName = z.string().regex(
  /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/,
  "a plain file name beside case.json (letters, digits, . _ -)",
);

const Identifier = z.string().regex(/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/, "a JavaScript identifier");

/** The signature's shape: `async function NAME(A, B)`. */
export const SIGNATURE =
  /^async function ([A-Za-z_$][A-Za-z0-9_$]*)\(\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*,\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\)$/;

/** case.json. */
export const SweepCaseSchema = z.object({
  format: z.literal(SWEEP_CASE_FORMAT),
  name: z.string().min(1).max(200),
  trajectory: z.object({
    file: CaseFileName,
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex digits"),
  }).strict(),
  units: z.array(
    z.object({
      id: z.string().regex(/^[A-Za-z0-9_.-]{1,32}$/, "1-32 letters, digits, _ . -"),
      message_index: z.number().int().nonnegative(),
      start: z.number().int().nonnegative(),
      end: z.number().int().positive(),
    }).strict(),
  ).min(1).max(1000),
  facts: z.array(
    z.object({
      name: z.string().min(1).max(200),
      text: z.string().min(1).max(1000).refine((text) => text.trim() !== "", "not only whitespace"),
      unit: z.string().min(1),
    }).strict(),
  ).min(1).max(100),
  follow_up: z.string().min(1).max(100_000),
  repair: z.object({
    function: Identifier,
    signature: z.string().regex(SIGNATURE, "async function NAME(CLIENT, INPUT)"),
    values: z.record(z.string(), z.unknown()).default({}),
  }).strict(),
  checks: z.union([
    z.object({ builtin: z.literal("payments-gateway") }).strict(),
    z.object({ module: CaseFileName }).strict(),
  ]),
  reference_repair: CaseFileName.optional(),
}).strict();
/** case.json, validated. */
export type SweepCaseJson = z.infer<typeof SweepCaseSchema>;
