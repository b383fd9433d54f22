/**
 * The sweep case format (docs/SWEEP_CASES.md): a folder with `case.json`, the trajectory it pins by SHA-256,
 * a checks module (or the built-in payment gateway) and optionally a reference repair.
 * @module
 */
import { z } from "zod";

const SWEEP_CASE_FORMAT = "compaction-bench/sweep-case@1";

/** The repair contract: the function the follow-up asks for, its two parameters and the checks' values. */
export interface CaseRepair {
  functionName: string;
  signature: string;
  params: [string, string];
  values: Record<string, unknown>;
}

/**
 * The values `checks: {builtin: "payments-gateway"}` needs in `repair.values`: each attempt's timeout, the
 * attempts allowed, the non-retryable code to surface unchanged, the codes to retry.
 */
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
/** `text` with each whitespace run folded to one space (how facts are matched against answers). */
export function foldWhitespace(text: string): string {
  return text.replace(/\s+/g, " ");
}

/** case.json, validated. */
export type SweepCaseJson = z.infer<typeof SweepCaseSchema>;
/** Where one evidence unit lies: `[start, end)` (UTF-16 indexes) in the tool message at `message_index`. */
export type UnitBoundary = SweepCaseJson["units"][number];
/** One exact fact: text a correct answer must contain, and the unit that states it. */
export type Fact = SweepCaseJson["facts"][number];
/** The payment gateway's repair values (the built-in `payments-gateway` checks). */
export type RepairSpec = { functionName: string; signature: string } & z.infer<typeof PaymentsValuesSchema>;
