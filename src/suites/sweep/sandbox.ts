/**
 * Runs model-written repair code against the fake gateway, isolated:
 *
 * 1. a Deno Worker with `permissions: "none"` (no files, network, environment, subprocesses, FFI);
 * 2. inside it, a fresh `node:vm` realm holding only ECMAScript built-ins and the fake client, with a CPU
 *    timeout that covers the repair's whole async chain (see sandbox_worker.ts);
 * 3. a wall-clock deadline in the parent that calls `worker.terminate()` and reports a failure.
 *
 * Deno 2.9's `terminate()` does not stop a worker that is busy in JavaScript (denoland/deno#35657): such a
 * worker keeps its core (and keeps allocating) until the process exits. That is why the vm timeout, which
 * interrupts the isolate from a watchdog thread, is the layer that actually stops loops and runaway
 * allocation; the parent's deadline is the backstop for everything else (e.g. a worker that never answers).
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import {
  type GatewayObservation,
  type GatewayScenario,
  GatewayScenarioSchema,
} from "./fake_payment_client.ts";
import type { SandboxReply, SandboxRequest } from "./sandbox_worker.ts";

/** Limits of one sandbox run. */
export interface SandboxLimits {
  /** Wall-clock deadline of the whole run, enforced with `worker.terminate()` (default 2000 ms). */
  deadlineMs?: number;
  /** CPU timeout of each evaluation step inside the worker's vm realm (default 500 ms). */
  cpuTimeoutMs?: number;
}

/** The outcome of one sandbox run. */
export type SandboxOutcome =
  | { status: "completed"; observation: GatewayObservation; elapsed_ms: number }
  | { status: "failed"; error: string; elapsed_ms: number }
  | { status: "deadline"; error: string; elapsed_ms: number };

const JsonScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** The observation posted by the worker: validated, because the repair ran in the same worker. */
export const GatewayObservationSchema: z.ZodType<GatewayObservation> = z.object({
  runs: z.array(z.object({
    orderId: z.string(),
    state: z.enum(["returned", "threw", "pending"]),
    chargeId: z.string().optional(),
    error: z.object({
      code: JsonScalarSchema,
      name: z.string(),
      message: z.string(),
      fromGateway: z.boolean(),
    }).optional(),
  })),
  events: z.array(z.discriminatedUnion("type", [
    z.object({
      type: z.literal("charge"),
      orderId: z.string(),
      attempt: z.number(),
      idempotencyKey: JsonScalarSchema,
      timeoutMs: JsonScalarSchema,
      outcome: z.string(),
    }),
    z.object({ type: z.literal("sleep"), orderId: z.string(), ms: JsonScalarSchema }),
  ])),
  ledger: z.array(
    z.object({ chargeId: z.string(), orderId: z.string(), idempotencyKey: z.string().nullable() }),
  ),
  callLimitHit: z.boolean(),
});

const WORKER_URL = new URL("./sandbox_worker.ts", import.meta.url);

/**
 * Runs `source` (JavaScript that defines `chargeWithRetry`) against one scenario in a fresh sandboxed
 * worker. Never throws for anything the repair does: load errors, exceptions, timeouts and escapes are
 * reported as `failed` or `deadline`. Needs `--unstable-worker-options` and read access to this module's
 * directory (to load the worker); the worker itself gets no permissions.
 */
export async function runInSandbox(
  source: string,
  scenario: GatewayScenario,
  limits: SandboxLimits = {},
): Promise<SandboxOutcome> {
  const deadlineMs = limits.deadlineMs ?? 2000;
  const cpuTimeoutMs = limits.cpuTimeoutMs ?? 500;
  const validScenario = GatewayScenarioSchema.parse(scenario);
  const nonce = crypto.randomUUID();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const worker = new Worker(WORKER_URL, {
    type: "module",
    name: "sweep-repair-sandbox",
    deno: { permissions: "none" },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<SandboxOutcome>((resolve) => {
      timer = setTimeout(() => {
        resolve({
          status: "deadline",
          error: `no answer within the ${deadlineMs} ms deadline`,
          elapsed_ms: elapsed(),
        });
      }, deadlineMs);
      worker.onmessage = (event: MessageEvent<SandboxReply>) => {
        const reply = event.data;
        if (typeof reply !== "object" || reply === null || reply.nonce !== nonce) return;
        if (!reply.ok) {
          resolve({ status: "failed", error: String(reply.error), elapsed_ms: elapsed() });
          return;
        }
        const parsed = GatewayObservationSchema.safeParse(reply.observation);
        if (parsed.success) {
          resolve({ status: "completed", observation: parsed.data, elapsed_ms: elapsed() });
        } else {
          resolve({
            status: "failed",
            error: `malformed observation: ${parsed.error.issues[0].message}`,
            elapsed_ms: elapsed(),
          });
        }
      };
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        resolve({ status: "failed", error: `worker error: ${event.message}`, elapsed_ms: elapsed() });
      };
      worker.onmessageerror = () => {
        resolve({
          status: "failed",
          error: "worker sent a message that could not be read",
          elapsed_ms: elapsed(),
        });
      };
      const request: SandboxRequest = { nonce, source, scenario: validScenario, cpuTimeoutMs };
      worker.postMessage(request);
    });
  } finally {
    clearTimeout(timer);
    worker.onmessage = null;
    worker.onerror = null;
    worker.onmessageerror = null;
    worker.terminate();
  }
}

/**
 * Probes the repair sandbox before a sweep creates its run directory. Without Deno's `worker-options` unstable
 * feature (the project's deno.json and the binary enable it) Deno exits the process (code 70) at the first
 * permission-less Worker; probing first makes that happen before anything is written. Any other failure to
 * start a Worker is a {@link UsageError}.
 */
export function assertSandboxAvailable(): void {
  let worker: Worker;
  try {
    worker = new Worker(WORKER_URL, {
      type: "module",
      name: "sweep-sandbox-probe",
      deno: { permissions: "none" },
    });
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new UsageError(
      `the repair sandbox needs permission-less Workers (${error.message}); run with --unstable-worker-options ` +
        `or through the project's deno.json, which enables it`,
      { cause: error },
    );
  }
  worker.terminate();
}
