/**
 * The sandbox worker: runs one repair against one fake-gateway scenario and posts back what the fake
 * gateway observed. The parent starts it with `deno: {permissions: "none"}`.
 *
 * Inside, the repair runs in a fresh `node:vm` realm with a null-prototype global (only ECMAScript
 * built-ins, no Deno APIs, no timers, no fetch), code generation from strings and WebAssembly disabled, and
 * `microtaskMode: "afterEvaluate"` so that the repair's whole async chain runs inside the vm's CPU timeout.
 * The fake gateway is evaluated in that realm from its source text, so no object of this worker's realm is
 * handed to the repair.
 *
 * Protocol: the parent posts `{nonce, source, scenario, cpuTimeoutMs}`; the worker posts one
 * `{nonce, ok: true, observation}` or `{nonce, ok: false, error}`.
 *
 * @module
 */
import vm from "node:vm";
import { createFakeGateway } from "./fake_payment_client.ts";

/** A message from the parent. */
export interface SandboxRequest {
  nonce: string;
  source: string;
  /** The validated scenario (plain JSON). */
  scenario: unknown;
  cpuTimeoutMs: number;
}

/** A message to the parent. */
export type SandboxReply =
  | { nonce: string; ok: true; observation: unknown }
  | { nonce: string; ok: false; error: string };

/** The dedicated-worker global scope, typed by hand (this file is checked with the window lib). */
const scope = globalThis as unknown as {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: MessageEvent<SandboxRequest>) => void) | null;
};
const send = scope.postMessage.bind(scope);
const close = scope.close.bind(scope);

const SILENT_CONSOLE =
  "var console = Object.freeze({ log() {}, info() {}, warn() {}, error() {}, debug() {} });";

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function run(request: SandboxRequest): SandboxReply {
  const context = vm.createContext(Object.create(null), {
    name: "repair",
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: "afterEvaluate",
  });
  const timeout = request.cpuTimeoutMs;
  const scenarioJson = JSON.stringify(JSON.stringify(request.scenario));
  vm.runInContext(
    `${SILENT_CONSOLE}\nvar __gateway = (${createFakeGateway.toString()})(JSON.parse(${scenarioJson}));`,
    context,
    { filename: "fake_gateway.js", timeout },
  );
  try {
    vm.runInContext(request.source, context, { filename: "repair.js", timeout });
  } catch (error) {
    return { nonce: request.nonce, ok: false, error: `the repair did not load: ${describe(error)}` };
  }
  try {
    vm.runInContext(
      `void __gateway.runAll(typeof chargeWithRetry === "function" ? chargeWithRetry : undefined);`,
      context,
      { filename: "scenario.js", timeout },
    );
  } catch (error) {
    return { nonce: request.nonce, ok: false, error: `the repair did not finish: ${describe(error)}` };
  }
  const json = vm.runInContext(`JSON.stringify(__gateway.observe())`, context, { timeout });
  if (typeof json !== "string") return { nonce: request.nonce, ok: false, error: "no observation" };
  return { nonce: request.nonce, ok: true, observation: JSON.parse(json) };
}

globalThis.addEventListener("unhandledrejection", (event) => event.preventDefault());

scope.onmessage = (event: MessageEvent<SandboxRequest>) => {
  let reply: SandboxReply;
  try {
    reply = run(event.data);
  } catch (error) {
    reply = { nonce: event.data.nonce, ok: false, error: describe(error) };
  }
  send(reply);
  close();
};
