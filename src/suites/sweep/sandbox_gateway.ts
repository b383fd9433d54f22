/**
 * The fake PayStream gateway's logic, free of runtime imports (its types come from the channel schemas)
 * so host and sandbox child run the same code: a scenario scripts each attempt's outcome per order; a ledger
 * keyed by `Idempotency-Key` replays repeated keys. The child's replica answers the repair at once; the host's
 * copy is the record the checks judge.
 * @module
 */
import type { ChildMessage, ScenarioData } from "./sandbox_channel.ts";

/** The single binary's hidden command word for the sandbox child (here: main.ts need not load the child). */
export const REPAIR_SANDBOX_COMMAND = "__repair-sandbox-child";

/** A recorded argument, reduced to JSON (non-JSON values become `"<type>"`). */
export type JsonScalar = string | number | boolean | null;

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

/** How one call of the repair ended. */
export interface RepairRun {
  orderId: string;
  state: "returned" | "threw" | "pending";
  /** The returned value's charge id, when it returned an object with a string `id`. */
  chargeId?: string;
  error?: { code: JsonScalar; name: string; message: string; fromGateway: boolean };
}

/** Everything the fake gateway saw, as plain JSON. */
export interface GatewayObservation {
  runs: RepairRun[];
  events: ClientEvent[];
  ledger: { chargeId: string; orderId: string; idempotencyKey: string | null }[];
  /** Whether the repair ran past the scenario's call limit. */
  callLimitHit: boolean;
}

/**
 * The gateway's answer to one charge (the child turns it into a value or an Error), as the channel schema
 * checks it; an error's `token` names it, so the child can say a thrown value is the gateway's own.
 */
export type ChargeReply = Extract<ChildMessage, { t: "charge" }>["reply"];

/** How the child says a call of the repair ended. */
export type RunEnd =
  | { state: "returned"; chargeId: string | null }
  | { state: "threw"; error: { code: JsonScalar; name: string; message: string; token: number | null } };

/** The gateway of one check; `begin` and `end` return a protocol violation as a string. */
export interface Gateway {
  readonly orders: readonly ScenarioData["charges"][number]["request"][];
  /** The child starts calling the repair for order `index`; must be the next order, none running. */
  begin(index: number): string | null;
  /** One `client.charge` call with the recorded options; answers it. */
  charge(call: { idempotencyKey: JsonScalar; timeoutMs: JsonScalar }): ChargeReply;
  sleep(ms: JsonScalar): void;
  end(end: RunEnd): string | null;
  /** A copy of what was recorded so far (a run begun and never ended is `pending`). */
  observe(): GatewayObservation;
}

/** The gateway of one validated scenario; self-contained, as the child evaluates its source in the realm. */
export function createGateway(scenario: ScenarioData): Gateway {
  const events: ClientEvent[] = [];
  const runs: RepairRun[] = [];
  const ledger: { chargeId: string; orderId: string; idempotencyKey: string | null }[] = [];
  const issuedErrors = new Set<number>();
  const attemptsByOrder = new Map<string, number>();
  let current = scenario.charges[0];
  let running = false;
  let calls = 0;
  let callLimitHit = false;

  function capture(key: string | null): { id: string; replayed: boolean } {
    const existing = key === null ? undefined : ledger.find((entry) => entry.idempotencyKey === key);
    if (existing) return { id: existing.chargeId, replayed: true };
    const chargeId = "ch_fake" + String(ledger.length + 1).padStart(4, "0");
    ledger.push({ chargeId, orderId: current.request.orderId, idempotencyKey: key });
    return { id: chargeId, replayed: false };
  }

  function gatewayError(message: string, code: string, status: number | null): ChargeReply {
    const token = issuedErrors.size + 1;
    issuedErrors.add(token);
    const error = { message, code, status, token };
    return code === "card_declined"
      ? { ok: false, error: { ...error, declineCode: "insufficient_funds" } }
      : { ok: false, error };
  }

  return {
    orders: scenario.charges.map((charge) => charge.request),
    begin(index) {
      if (running) return `the child began order ${index} while order ${runs.length - 1} was still running`;
      if (index !== runs.length || index >= scenario.charges.length) {
        return `the child began order ${index}; expected order ${runs.length}`;
      }
      current = scenario.charges[index];
      running = true;
      runs.push({ orderId: current.request.orderId, state: "pending" });
      return null;
    },
    charge(call) {
      calls += 1;
      const orderId = current.request.orderId;
      const attempt = (attemptsByOrder.get(orderId) ?? 0) + 1;
      attemptsByOrder.set(orderId, attempt);
      const rawKey = call.idempotencyKey;
      const key = typeof rawKey === "string" && rawKey.length > 0 ? rawKey : null;
      const outcome = calls > scenario.callLimit
        ? "call_limit"
        : current.outcomes[Math.min(attempt, current.outcomes.length) - 1];
      events.push({
        type: "charge",
        orderId,
        attempt,
        idempotencyKey: rawKey,
        timeoutMs: call.timeoutMs,
        outcome,
      });

      switch (outcome) {
        case "call_limit":
          callLimitHit = true;
          return gatewayError("sandbox: too many charge calls", "sandbox_call_limit", null);
        case "ok": {
          const charge = capture(key);
          return {
            ok: true,
            value: {
              id: charge.id,
              object: "charge",
              status: "succeeded",
              amount: current.request.amount,
              currency: current.request.currency,
              metadata: { order_id: orderId },
              replayed: charge.replayed,
            },
          };
        }
        case "timeout_after_charge":
          capture(key);
          // falls through: the client still times out
        case "timeout":
          return gatewayError("charge timed out", "ETIMEDOUT", null);
        case "unavailable":
          return gatewayError("PayStream is temporarily unavailable", "gateway_unavailable", 503);
        case "declined":
          return gatewayError("Your card has insufficient funds.", "card_declined", 402);
      }
    },
    sleep(ms) {
      events.push({ type: "sleep", orderId: current.request.orderId, ms });
    },
    end(end) {
      if (!running) return "the child ended a call of the repair that was not running";
      running = false;
      const run = runs[runs.length - 1];
      if (end.state === "returned") {
        run.state = "returned";
        if (end.chargeId !== null) run.chargeId = end.chargeId;
        return null;
      }
      run.state = "threw";
      const { code, name, message, token } = end.error;
      run.error = { code, name, message, fromGateway: token !== null && issuedErrors.has(token) };
      return null;
    },
    observe() {
      return JSON.parse(JSON.stringify({ runs, events, ledger, callLimitHit }));
    },
  };
}
