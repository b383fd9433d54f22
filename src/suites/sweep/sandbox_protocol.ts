/**
 * What the sandbox child (hostile code) may send the host, and the channel's size caps; any other line ends
 * that child (sandbox.ts).
 * @module
 */
import { z } from "zod";

/** Longest string the realm driver reports (keys, error names and messages, charge ids). */
export const MAX_REPORTED_TEXT = 4096;
/** Sleeps per check the realm driver reports; later ones are answered without a message. */
export const MAX_REPORTED_SLEEPS = 1000;
/** Longest line the host reads from the child (bytes, newline excluded). */
export const MAX_CHILD_LINE_BYTES = 64 * 1024;
/** Most lines the host reads from the child for one check (an honest driver sends at most ~1,100). */
export const MAX_CHILD_LINES_PER_CHECK = 5000;

const Text = z.string().max(MAX_REPORTED_TEXT);
const Scalar = z.union([Text, z.number(), z.boolean(), z.null()]);

/** One line from the child. */
export const ChildMessageSchema = z.union([
  z.object({ t: z.literal("ready") }).strict(),
  z.object({ t: z.literal("begin"), order: z.number().int().nonnegative() }).strict(),
  z.object({
    t: z.literal("charge"),
    idempotencyKey: Scalar,
    timeoutMs: Scalar,
    /** The answer the child's gateway replica gave; the host refuses one that differs from its own. */
    reply: z.union([
      z.object({
        ok: z.literal(true),
        value: z.object({
          id: Text,
          object: z.literal("charge"),
          status: z.literal("succeeded"),
          amount: z.number(),
          currency: Text,
          metadata: z.object({ order_id: Text }).strict(),
          replayed: z.boolean(),
        }).strict(),
      }).strict(),
      z.object({
        ok: z.literal(false),
        error: z.object({
          message: Text,
          code: Text,
          status: z.number().nullable(),
          declineCode: Text.optional(),
          token: z.number().int().positive(),
        }).strict(),
      }).strict(),
    ]),
  }).strict(),
  z.object({ t: z.literal("sleep"), ms: Scalar }).strict(),
  z.object({ t: z.literal("end"), state: z.literal("returned"), chargeId: Text.nullable() }).strict(),
  z.object({
    t: z.literal("end"),
    state: z.literal("threw"),
    error: z.object({
      code: Scalar,
      name: Text,
      message: Text,
      token: z.number().int().positive().nullable(),
    }).strict(),
  }).strict(),
  z.object({ t: z.literal("done"), error: z.string().max(2 * MAX_REPORTED_TEXT).nullable() }).strict(),
  /** A case checks module's verdict on one check (case_checks.ts). */
  z.object({ t: z.literal("verdict"), passed: z.boolean(), detail: Text }).strict(),
  /** The check names of a case checks module. */
  z.object({ t: z.literal("list"), names: z.array(Text.min(1)).max(100) }).strict(),
]);
/** One line from the child. */
export type ChildMessage = z.infer<typeof ChildMessageSchema>;
