/**
 * The repair sandbox's channel schemas (host: sandbox.ts), apart so the import-free gateway can take its
 * types from them without an import circle.
 * @module
 */
import { z } from "zod";

/** Longest string the realm driver reports (keys, error names and messages, charge ids). */
export const MAX_REPORTED_TEXT = 4096;

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
  z.object({ t: z.literal("list"), names: z.array(Text.min(1)).max(100) }).strict(),
]);
/** One line from the child. */
export type ChildMessage = z.infer<typeof ChildMessageSchema>;

/**
 * What the gateway does on one attempt: capture (or replay under the same key); capture, then the client
 * times out (ETIMEDOUT); time out first; 503 gateway_unavailable; 402 card_declined (insufficient_funds).
 */
const GatewayOutcomeSchema = z.enum(["ok", "timeout_after_charge", "timeout", "unavailable", "declined"]);

/** A scripted scenario: the repair is called once per charge, in order. */
export const GatewayScenarioSchema = z.object({
  charges: z.array(z.object({
    request: z.object({
      orderId: z.string().min(1),
      amount: z.number(),
      currency: z.string().min(1),
      customerId: z.string().min(1),
    }),
    /** Outcome of attempt 1, 2, ...; the last one repeats. */
    outcomes: z.array(GatewayOutcomeSchema).min(1),
  })).min(1),
  /** Calls of `client.charge` after which the gateway refuses more (guards runaway retry loops). */
  callLimit: z.number().int().positive().default(50),
});

/** A scripted scenario: the repair is called once per charge, in order. */
export type GatewayScenario = z.input<typeof GatewayScenarioSchema>;
/** A validated scenario (what the gateway runs). */
export type ScenarioData = z.output<typeof GatewayScenarioSchema>;
