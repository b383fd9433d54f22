/**
 * A small fake PayStream gateway and the client the repair is given. A scenario scripts, per order, the
 * outcome of each successive attempt; the gateway keeps a ledger of captured charges keyed by the
 * `Idempotency-Key` (a repeated key replays the charge, as the real gateway does), and records every
 * `charge` and `sleep` call in order.
 *
 * {@link createFakeGateway} is self-contained (it refers to nothing outside its own body), because the
 * sandbox worker evaluates its source text inside the repair's isolated realm: the client and the
 * recorder then live in that realm and no object from the worker's own realm is reachable from the repair.
 *
 * @module
 */
import { z } from "zod";

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

/** One recorded call of the client. */
export type ClientEvent =
  | {
    type: "charge";
    orderId: string;
    attempt: number;
    idempotencyKey: JsonScalar;
    timeoutMs: JsonScalar;
    outcome: string;
  }
  | { type: "sleep"; orderId: string; ms: JsonScalar };

/** A recorded argument, reduced to JSON (non-JSON values become `"<type>"`). */
export type JsonScalar = string | number | boolean | null;

/** How one call of the repair ended. */
export interface RepairRun {
  orderId: string;
  state: "returned" | "threw" | "pending";
  /** The returned value's charge id, when it returned an object with a string `id`. */
  chargeId?: string;
  /** The thrown value, when it threw. */
  error?: { code: JsonScalar; name: string; message: string; fromGateway: boolean };
}

/** Everything the fake gateway saw, as plain JSON. */
export interface GatewayObservation {
  runs: RepairRun[];
  events: ClientEvent[];
  /** Captured charges. */
  ledger: { chargeId: string; orderId: string; idempotencyKey: string | null }[];
  /** Whether the repair ran past the scenario's call limit. */
  callLimitHit: boolean;
}

/** The fake gateway: the client handed to the repair, a driver and the observation. */
export interface FakeGateway {
  /** The client the repair is given: `charge(request, {idempotencyKey, timeoutMs})` and `sleep(ms)`. */
  client: {
    charge(request: unknown, options?: unknown): Promise<unknown>;
    sleep(ms: unknown): Promise<void>;
  };
  /** Calls `repair(client, request)` once per scripted charge, in order, recording how each ended. */
  runAll(repair: unknown): Promise<void>;
  /** A JSON copy of what was recorded so far. */
  observe(): GatewayObservation;
}

/**
 * Builds a fake gateway for a scenario (already validated). Self-contained: see the module note.
 */
export function createFakeGateway(scenario: z.output<typeof GatewayScenarioSchema>): FakeGateway {
  const events: ClientEvent[] = [];
  const runs: RepairRun[] = [];
  const ledger: { chargeId: string; orderId: string; idempotencyKey: string | null; amount: number }[] = [];
  const gatewayErrors: unknown[] = [];
  const attemptsByOrder: Record<string, number> = {};
  let current = scenario.charges[0];
  let calls = 0;
  let callLimitHit = false;

  function plain(value: unknown): JsonScalar {
    if (value === null || value === undefined) return null;
    if (typeof value === "string" || typeof value === "boolean") return value;
    if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
    return "<" + typeof value + ">";
  }

  function gatewayError(message: string, code: string, status: number | undefined): Error {
    const error = Object.assign(new Error(message), { name: "GatewayError", code, status });
    gatewayErrors.push(error);
    return error;
  }

  function capture(key: string | null): { id: string; replayed: boolean } {
    const existing = key === null ? undefined : ledger.find((entry) => entry.idempotencyKey === key);
    if (existing) return { id: existing.chargeId, replayed: true };
    const chargeId = "ch_fake" + String(ledger.length + 1).padStart(4, "0");
    ledger.push({
      chargeId,
      orderId: current.request.orderId,
      idempotencyKey: key,
      amount: current.request.amount,
    });
    return { id: chargeId, replayed: false };
  }

  const client = Object.freeze({
    charge(_request: unknown, options?: unknown): Promise<unknown> {
      calls += 1;
      const orderId = current.request.orderId;
      const attempt = (attemptsByOrder[orderId] ?? 0) + 1;
      attemptsByOrder[orderId] = attempt;
      const opts = (typeof options === "object" && options !== null ? options : {}) as Record<
        string,
        unknown
      >;
      const rawKey = opts.idempotencyKey;
      const key = typeof rawKey === "string" && rawKey.length > 0 ? rawKey : null;
      const outcome = calls > scenario.callLimit
        ? "call_limit"
        : current.outcomes[Math.min(attempt, current.outcomes.length) - 1];
      events.push({
        type: "charge",
        orderId,
        attempt,
        idempotencyKey: plain(rawKey),
        timeoutMs: plain(opts.timeoutMs),
        outcome,
      });
      if (outcome === "call_limit") {
        callLimitHit = true;
        return Promise.reject(
          gatewayError("sandbox: too many charge calls", "sandbox_call_limit", undefined),
        );
      }
      if (outcome === "ok") {
        const charge = capture(key);
        return Promise.resolve({
          id: charge.id,
          object: "charge",
          status: "succeeded",
          amount: current.request.amount,
          currency: current.request.currency,
          metadata: { order_id: orderId },
          replayed: charge.replayed,
        });
      }
      if (outcome === "timeout_after_charge") {
        capture(key);
        return Promise.reject(gatewayError("charge timed out", "ETIMEDOUT", undefined));
      }
      if (outcome === "timeout") {
        return Promise.reject(gatewayError("charge timed out", "ETIMEDOUT", undefined));
      }
      if (outcome === "unavailable") {
        return Promise.reject(
          gatewayError("PayStream is temporarily unavailable", "gateway_unavailable", 503),
        );
      }
      const declined = gatewayError("Your card has insufficient funds.", "card_declined", 402);
      Object.assign(declined, { declineCode: "insufficient_funds" });
      return Promise.reject(declined);
    },
    sleep(ms: unknown): Promise<void> {
      events.push({ type: "sleep", orderId: current.request.orderId, ms: plain(ms) });
      return Promise.resolve();
    },
  });

  async function runAll(repair: unknown): Promise<void> {
    for (const charge of scenario.charges) {
      current = charge;
      const run: RepairRun = { orderId: charge.request.orderId, state: "pending" };
      runs.push(run);
      if (typeof repair !== "function") {
        run.state = "threw";
        run.error = {
          code: null,
          name: "TypeError",
          message: "the repair defines no function",
          fromGateway: false,
        };
        continue;
      }
      try {
        const value = await repair(client, { ...charge.request });
        run.state = "returned";
        const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
        if (typeof id === "string") run.chargeId = id;
      } catch (error) {
        run.state = "threw";
        const isObject = typeof error === "object" && error !== null;
        run.error = {
          code: isObject ? plain((error as { code?: unknown }).code) : null,
          name: isObject ? String((error as { name?: unknown }).name) : typeof error,
          message: isObject ? String((error as { message?: unknown }).message) : String(error),
          fromGateway: gatewayErrors.includes(error),
        };
      }
    }
  }

  function observe(): GatewayObservation {
    return JSON.parse(JSON.stringify({
      runs,
      events,
      ledger: ledger.map((entry) => ({
        chargeId: entry.chargeId,
        orderId: entry.orderId,
        idempotencyKey: entry.idempotencyKey,
      })),
      callLimitHit,
    }));
  }

  return { client, runAll, observe };
}
