/**
 * The gold side of the sweep suite, keyed by the SHA-256 of the trajectory file it belongs to: where the
 * ten evidence units lie, the ten exact facts a correct follow-up answer must contain, the follow-up
 * question and the repair contract. Written by hand from the fixture; no model writes or judges any of it.
 *
 * @module
 */

/** Where one evidence unit lies: `[start, end)` in the content of the tool message at `message_index`. */
export interface UnitBoundary {
  /** Stable unit id, `u01`..`u10`, in source order. */
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

/** The values of the repair contract that the six repair checks hold a repair to. */
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

/** Everything the sweep suite knows about one trajectory file. */
export interface SweepOracle {
  /** A short name of the fixture. */
  name: string;
  units: UnitBoundary[];
  facts: Fact[];
  followUp: string;
  repair: RepairSpec;
}

const PAYMENTS_REPAIR: RepairSpec = {
  functionName: "chargeWithRetry",
  signature: "async function chargeWithRetry(client, request)",
  timeoutMs: 4000,
  maxAttempts: 4,
  nonRetryableCode: "card_declined",
  retryableCodes: ["ETIMEDOUT", "ECONNRESET", "gateway_unavailable", "rate_limited"],
};

const PAYMENTS_FOLLOW_UP = `Based on your investigation so far, write your final answer in two parts.

1. Root cause. State it with the exact specifics from the evidence: the commit and the release that introduced the problem; the HTTP request header that is supposed to make retries safe and how the new code misuses it; the timeout the code actually uses and the configured timeout, with the config key that holds it; the config key that limits retries; the gateway host involved; how the gateway recorded the requests that timed out on our side; and the error code that is being retried although it must not be.

2. Repair. Write the fixed retry function in JavaScript, in one \`\`\`js code block, with exactly this signature:

    async function chargeWithRetry(client, request)

- \`request\` is \`{ orderId, amount, currency, customerId }\`.
- \`client.charge(request, { idempotencyKey, timeoutMs })\` makes one attempt: it resolves to the charge object, or rejects with an error that has a \`code\` (and \`status\` when the gateway answered).
- \`client.sleep(ms)\` waits; use it for every wait between attempts.
- Follow the team's runbook and use the values from the configuration. Do not import anything: the function and any constants or helpers it needs must be in the block.`;

/** Known fixtures, keyed by the SHA-256 (hex) of the trajectory file's bytes. */
export const SWEEP_ORACLES: ReadonlyMap<string, SweepOracle> = new Map([
  ["221eba2e902f106837949640ed78d1a88cf1edaff5c537c112bb48c21ca0a553", {
    name: "payments-double-charge",
    units: [
      { id: "u01", message_index: 3, start: 0, end: 1845 },
      { id: "u02", message_index: 3, start: 1845, end: 4877 },
      { id: "u03", message_index: 3, start: 4877, end: 6669 },
      { id: "u04", message_index: 5, start: 0, end: 2225 },
      { id: "u05", message_index: 6, start: 0, end: 786 },
      { id: "u06", message_index: 8, start: 0, end: 1365 },
      { id: "u07", message_index: 9, start: 0, end: 1087 },
      { id: "u08", message_index: 9, start: 1087, end: 3006 },
      { id: "u09", message_index: 11, start: 0, end: 1224 },
      { id: "u10", message_index: 11, start: 1224, end: 2530 },
    ],
    facts: [
      { name: "deploy commit", text: "a91c3f7", unit: "u06" },
      { name: "release", text: "v2.14.0", unit: "u06" },
      { name: "idempotency header", text: "Idempotency-Key", unit: "u08" },
      { name: "timeout config key", text: "charge_timeout_ms", unit: "u05" },
      { name: "configured timeout (ms)", text: "4000", unit: "u05" },
      { name: "hard-coded timeout (ms)", text: "1500", unit: "u04" },
      { name: "retry limit config key", text: "max_attempts", unit: "u05" },
      { name: "gateway host", text: "api.paystream.io", unit: "u02" },
      { name: "non-retryable error code", text: "card_declined", unit: "u03" },
      { name: "gateway status for timed-out requests", text: "client_closed_request", unit: "u10" },
    ],
    followUp: PAYMENTS_FOLLOW_UP,
    repair: PAYMENTS_REPAIR,
  }],
]);

/** The path of the default sweep trajectory, relative to the project root. */
export const DEFAULT_SWEEP_TRAJECTORY = "fixtures/sweep/trajectory.json";
