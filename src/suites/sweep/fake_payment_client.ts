/**
 * The fake PayStream gateway as the host uses it: the scenario schemas, and the host's gateway of one check
 * (the gateway's logic itself is import-free in sandbox_gateway.ts, so that the sandbox child can run a
 * replica of it).
 *
 * The repair runs in a child process (see sandbox.ts) and reports every call of its client over the
 * sandbox channel. Everything a check judges about the gateway is the host gateway's own record: the host
 * decides every outcome (a child that answered differently breaks the protocol), attributes every call to
 * the order running (orders must begin in turn), and keeps the ledger. The only thing the child reports
 * beyond the calls is how each call of the repair ended (the value it returned or threw): a claim about the
 * repair's own behaviour, which the checks compare with this record; an error counts as "the gateway's own"
 * only when it carries a token this gateway handed out. Nothing the answer's code can reach is read back.
 *
 * @module
 */
import { z } from "zod";
import { createGateway, type Gateway } from "./sandbox_gateway.ts";

/** What the gateway does on one attempt. */
export const GatewayOutcomeSchema = z.enum([
  /** Captures the charge (or replays the one captured under the same key). */
  "ok",
  /** Captures the charge, but the client times out before the answer: the caller sees ETIMEDOUT. */
  "timeout_after_charge",
  /** Times out before the gateway did anything. */
  "timeout",
  /** Answers 503 gateway_unavailable. */
  "unavailable",
  /** Answers 402 card_declined (insufficient_funds). */
  "declined",
]);
/** What the gateway does on one attempt. */
export type GatewayOutcome = z.infer<typeof GatewayOutcomeSchema>;

/** One charge request as the repair receives it. */
export const ChargeRequestSchema = z.object({
  orderId: z.string().min(1),
  amount: z.number(),
  currency: z.string().min(1),
  customerId: z.string().min(1),
});
/** One charge request as the repair receives it. */
export type ChargeRequest = z.infer<typeof ChargeRequestSchema>;

/** A scripted scenario: the repair is called once per charge, in order. */
export const GatewayScenarioSchema = z.object({
  charges: z.array(z.object({
    request: ChargeRequestSchema,
    /** Outcome of attempt 1, 2, ...; the last one repeats. */
    outcomes: z.array(GatewayOutcomeSchema).min(1),
  })).min(1),
  /** Calls of `client.charge` after which the gateway refuses further calls (guards runaway retry loops). */
  callLimit: z.number().int().positive().default(50),
});
/** A scripted scenario: the repair is called once per charge, in order. */
export type GatewayScenario = z.input<typeof GatewayScenarioSchema>;

export type {
  ChargeReply,
  ClientEvent,
  Gateway,
  GatewayObservation,
  JsonScalar,
  RepairRun,
  RunEnd,
  ScenarioData,
} from "./sandbox_gateway.ts";

/** Builds the host's gateway of one scenario (validated here); see the module documentation. */
export function createHostGateway(input: GatewayScenario): Gateway {
  return createGateway(GatewayScenarioSchema.parse(input));
}
