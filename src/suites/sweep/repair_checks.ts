/**
 * The payment case's six repair checks (docs/SWEEP_CASES.md lists them), each judging the host gateway's
 * record of one scripted scenario (no model writes or judges them), and finding the repair in an answer.
 * @module
 */
import {
  type GatewayObservation,
  type GatewayScenario,
  runChecksInSandbox,
  type SandboxLaunch,
  type SandboxLimits,
} from "./sandbox.ts";
import type { RepairSpec } from "./case_format.ts";

type Verdict = { passed: boolean; detail: string };
const fail = (detail: string): Verdict => ({ passed: false, detail });

/** The checks' outcomes on one answer; `error` when no repair could be extracted (every check fails so). */
export interface RepairCheckReport {
  checks: ({ name: string } & Verdict)[];
  all_passed: boolean;
  error?: string;
}

/** The report on an answer no repair was extracted from: every check fails with `error`. */
export function unextracted(names: readonly string[], error: string): RepairCheckReport {
  return { checks: names.map((name) => ({ name, passed: false, detail: error })), all_passed: false, error };
}

interface CheckDefinition {
  name: string;
  scenario: GatewayScenario;
  judge(observation: GatewayObservation, spec: RepairSpec): Verdict;
}

const ORDER_A = { orderId: "ord_T3ST01", amount: 89, currency: "EUR", customerId: "cus_T3ST01" };
const ORDER_B = { orderId: "ord_T3ST02", amount: 35.7, currency: "EUR", customerId: "cus_T3ST02" };

function charges(observation: GatewayObservation, orderId: string) {
  type Charge = Extract<GatewayObservation["events"][number], { type: "charge" }>;
  return observation.events.filter((event) =>
    event.type === "charge" && event.orderId === orderId
  ) as Charge[];
}

function describeRun(observation: GatewayObservation, orderId: string): string {
  const run = observation.runs.find((r) => r.orderId === orderId);
  if (!run) return "was never called";
  if (run.state === "pending") return "never settled";
  if (run.state === "returned") return `returned ${run.chargeId ?? "a value without a charge id"}`;
  return `threw ${run.error?.name} code=${JSON.stringify(run.error?.code)} (${run.error?.message})`;
}

const REPAIR_CHECKS: readonly CheckDefinition[] = [
  {
    name: "idempotency",
    scenario: {
      charges: [
        { request: ORDER_A, outcomes: ["unavailable", "unavailable", "ok"] },
        { request: ORDER_B, outcomes: ["ok"] },
      ],
    },
    judge(observation) {
      const a = charges(observation, ORDER_A.orderId);
      const b = charges(observation, ORDER_B.orderId);
      const keysA = [...new Set(a.map((c) => c.idempotencyKey))];
      if (a.length < 2) return fail(`order A made ${a.length} attempt(s); expected retries`);
      if (keysA.length !== 1 || typeof keysA[0] !== "string" || keysA[0] === "") {
        return fail(`order A's ${a.length} attempts used keys ${JSON.stringify(keysA)}`);
      }
      if (b.length === 0) return fail(`order B ${describeRun(observation, ORDER_B.orderId)}`);
      if (b.some((c) => c.idempotencyKey === keysA[0])) {
        return fail(`orders A and B share the key ${JSON.stringify(keysA[0])}`);
      }
      return { passed: true, detail: `one key per charge, reused on ${a.length} attempts` };
    },
  },
  {
    name: "retry_limit",
    scenario: { charges: [{ request: ORDER_A, outcomes: ["timeout"] }] },
    judge(observation, spec) {
      const a = charges(observation, ORDER_A.orderId);
      const run = observation.runs.find((r) => r.orderId === ORDER_A.orderId);
      if (a.length !== spec.maxAttempts) {
        return fail(`${a.length} attempts; max_attempts is ${spec.maxAttempts} in total`);
      }
      if (run?.state !== "threw") {
        return fail(
          `after ${a.length} failed attempts the call ${describeRun(observation, ORDER_A.orderId)}`,
        );
      }
      return { passed: true, detail: `${a.length} attempts, then rejected` };
    },
  },
  {
    name: "backoff",
    scenario: {
      charges: [{ request: ORDER_A, outcomes: ["unavailable", "unavailable", "unavailable", "ok"] }],
    },
    judge(observation) {
      const events = observation.events.filter((e) => e.orderId === ORDER_A.orderId);
      const delays: number[] = [];
      let attempts = 0;
      for (const [index, event] of events.entries()) {
        if (event.type === "sleep") {
          if (typeof event.ms !== "number") return fail(`sleep(${JSON.stringify(event.ms)})`);
          delays.push(event.ms);
          continue;
        }
        attempts += 1;
        if (attempts > 1 && events[index - 1]?.type !== "sleep") {
          return fail(`attempt ${attempts} was not preceded by client.sleep`);
        }
      }
      if (attempts < 2) return fail(`${attempts} attempt(s); expected retries`);
      const increasing = delays.every((d, i) => d > 0 && (i === 0 || d > delays[i - 1]));
      if (!increasing) return fail(`delays ${JSON.stringify(delays)} are not positive and increasing`);
      return { passed: true, detail: `delays ${JSON.stringify(delays)} ms` };
    },
  },
  {
    name: "timeout",
    scenario: { charges: [{ request: ORDER_A, outcomes: ["timeout", "ok"] }] },
    judge(observation, spec) {
      const a = charges(observation, ORDER_A.orderId);
      if (a.length === 0) return fail(`the call ${describeRun(observation, ORDER_A.orderId)}`);
      const wrong = a.filter((c) => c.timeoutMs !== spec.timeoutMs);
      if (wrong.length > 0) {
        return fail(`timeoutMs ${JSON.stringify(a.map((c) => c.timeoutMs))}; configured ${spec.timeoutMs}`);
      }
      if (a.length < 2) return fail("a timed-out attempt was not retried");
      return { passed: true, detail: `timeoutMs ${spec.timeoutMs} on all ${a.length} attempts` };
    },
  },
  {
    name: "no_double_charge",
    scenario: { charges: [{ request: ORDER_A, outcomes: ["timeout_after_charge", "ok"] }] },
    judge(observation) {
      const captured = observation.ledger.filter((entry) => entry.orderId === ORDER_A.orderId);
      const run = observation.runs.find((r) => r.orderId === ORDER_A.orderId);
      if (captured.length !== 1) return fail(`${captured.length} captured charges for one order`);
      if (run?.state !== "returned" || run.chargeId !== captured[0].chargeId) {
        return fail(
          `the gateway captured ${captured[0].chargeId}, but the call ${
            describeRun(observation, ORDER_A.orderId)
          }`,
        );
      }
      return { passed: true, detail: `one charge ${captured[0].chargeId}, returned after the timeout` };
    },
  },
  {
    name: "error_surfaced",
    scenario: { charges: [{ request: ORDER_A, outcomes: ["declined"] }] },
    judge(observation, spec) {
      const a = charges(observation, ORDER_A.orderId);
      const run = observation.runs.find((r) => r.orderId === ORDER_A.orderId);
      if (a.length !== 1) return fail(`a ${spec.nonRetryableCode} was attempted ${a.length} times`);
      if (run?.state !== "threw" || run.error?.code !== spec.nonRetryableCode) {
        return fail(`the call ${describeRun(observation, ORDER_A.orderId)}`);
      }
      return {
        passed: true,
        detail: `rejected with ${spec.nonRetryableCode}${
          run.error.fromGateway ? " (the gateway's own error)" : ""
        }`,
      };
    },
  },
];

/** Extracts the repair from `answer`, runs the six checks in a sandbox child; never throws for the answer. */
export async function runRepairChecks(
  answer: string,
  spec: RepairSpec,
  limits: SandboxLimits = {},
  launch?: SandboxLaunch,
): Promise<RepairCheckReport> {
  const extraction = extractRepair(answer, spec.functionName);
  if (!extraction.ok) return unextracted(REPAIR_CHECKS.map((check) => check.name), extraction.error);
  const outcomes = await runChecksInSandbox(
    extraction.source,
    REPAIR_CHECKS.map((check) => check.scenario),
    limits,
    launch,
  );
  const checks = REPAIR_CHECKS.map((check, index): RepairCheckReport["checks"][number] => {
    const outcome = outcomes[index];
    if (outcome.status !== "completed") {
      return { name: check.name, passed: false, detail: `${outcome.status}: ${outcome.error}` };
    }
    const observation = outcome.observation;
    const firstOrder = observation.runs[0]?.orderId ?? "";
    const verdict = observation.callLimitHit
      ? fail("the repair kept calling client.charge past the sandbox's call limit")
      : !observation.events.some((event) => event.type === "charge")
      ? fail(`no client.charge call: the call ${describeRun(observation, firstOrder)}`)
      : check.judge(observation, spec);
    return { name: check.name, ...verdict };
  });
  return { checks, all_passed: checks.every((check) => check.passed) };
}

const FENCE = /```[ \t]*(js|javascript|mjs)[ \t]*\r?\n([\s\S]*?)```/gi;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The repair source defining `async function <name>(client, request)`, `export` removed (a script). */
export function extractRepair(
  answer: string,
  functionName = "chargeWithRetry",
  params: readonly [string, string] = ["client", "request"],
): { ok: true; source: string } | { ok: false; error: string } {
  const [client, input] = params.map(escapeRegExp);
  const signature = new RegExp(
    `async\\s+function\\s+${escapeRegExp(functionName)}\\s*\\(\\s*${client}\\s*,\\s*${input}\\s*\\)`,
  );
  const blocks = [...answer.matchAll(FENCE)].map((match) => match[2]);
  if (blocks.length === 0) return { ok: false, error: "the answer has no ```js code block" };
  const defining = blocks.filter((block) => signature.test(block));
  if (defining.length === 0) {
    return {
      ok: false,
      error: `no \`\`\`js block defines async function ${functionName}(${
        params.join(", ")
      }) (${blocks.length} js blocks)`,
    };
  }
  const source = defining[defining.length - 1].replace(
    /^([ \t]*)export\s+(default\s+)?(?=(async\s+)?function|const|let|class)/gm,
    "$1",
  );
  return { ok: true, source };
}
