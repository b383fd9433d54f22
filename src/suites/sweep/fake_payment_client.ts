/**
 * The fake PayStream gateway as the host uses it (its import-free logic, replicated in the child, is
 * sandbox_gateway.ts). A check judges only the host gateway's own record: it decides every outcome and keeps
 * the ledger; an error is the gateway's own only when it carries a token this gateway handed out.
 * @module
 */
import { z } from "zod";
import { createGateway, type Gateway } from "./sandbox_gateway.ts";

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
