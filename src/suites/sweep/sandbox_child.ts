/**
 * The repair sandbox's child (host: sandbox.ts; docs/SANDBOX.md): after `{t: "ready"}`, runs each check line
 * in a fresh null-prototype `node:vm` realm (no code generation from strings, microtasks inside the CPU
 * timeout) and ends it with `{t: "done", error}`. It imports only what `deno run --no-config` can load; all
 * I/O is synchronous, so no event loop turn runs the repair's code outside the vm timeout.
 * @module
 */
import vm from "node:vm";
import { createGateway } from "./sandbox_gateway.ts";
import { createRealmDriver } from "./sandbox_realm.ts";
import { REPAIR_SANDBOX_COMMAND } from "./sandbox_command.ts";
import {
  type CaseCheckMessage,
  type CaseListMessage,
  describe,
  realm,
  runCaseCheck,
  runCaseList,
  SILENT_CONSOLE,
} from "./case_child.ts";

export { REPAIR_SANDBOX_COMMAND };

/** One check as the host sends it (the host is trusted; its lines are not schema-checked here). */
interface CheckMessage {
  t: "check";
  source: string;
  scenario: unknown;
  cpuTimeoutMs: number;
  maxText: number;
  maxSleeps: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads stdin line by line with blocking reads. */
class SyncLines {
  #buffer = new Uint8Array(0);
  #chunk = new Uint8Array(64 * 1024);

  /** The next line without its newline, or null at the end of input. */
  next(): string | null {
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline >= 0) {
        const line = decoder.decode(this.#buffer.subarray(0, newline));
        this.#buffer = this.#buffer.slice(newline + 1);
        return line;
      }
      const read = Deno.stdin.readSync(this.#chunk);
      if (read === null || read === 0) return null;
      const joined = new Uint8Array(this.#buffer.length + read);
      joined.set(this.#buffer);
      joined.set(this.#chunk.subarray(0, read), this.#buffer.length);
      this.#buffer = joined;
    }
  }
}

function writeLine(line: string): void {
  const bytes = encoder.encode(line + "\n");
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

function runCheck(check: CheckMessage): string | null {
  const context = realm("repair");

  const timeout = check.cpuTimeoutMs;
  const bridge = (message: unknown): void => {
    if (typeof message === "string") writeLine(message);
  };
  (context as Record<string, unknown>).__bridge = bridge;
  const scenario = JSON.stringify(JSON.stringify(check.scenario));
  const gateway = `(${createGateway.toString()})(JSON.parse(${scenario}))`;
  const driver =
    `(${createRealmDriver.toString()})(__bridge, ${gateway}, ${check.maxText}, ${check.maxSleeps})`;
  vm.runInContext(
    `${SILENT_CONSOLE}\n` +
      `Object.defineProperty(globalThis, "__driver", { value: ${driver} });\n` +
      `delete globalThis.__bridge;`,
    context,
    { filename: "sandbox_driver.js", timeout },
  );
  try {
    vm.runInContext(check.source, context, { filename: "repair.js", timeout });
  } catch (error) {
    return `the repair did not load: ${describe(error, check.maxText)}`;
  }
  try {
    vm.runInContext(
      `void __driver.runAll(typeof chargeWithRetry === "function" ? chargeWithRetry : undefined);`,
      context,
      { filename: "scenario.js", timeout },
    );
  } catch (error) {
    return `the repair did not finish: ${describe(error, check.maxText)}`;
  }
  return null;
}

/** Drops every permission this process holds (the single binary is built with broad ones). */
function revokeEveryPermission(): void {
  const names = ["read", "write", "net", "env", "sys", "run", "ffi", "import"] as const;
  for (const name of names) {
    try {
      Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // a kind this Deno does not know is not held either
    }
  }
}

/** Serves the host's checks on stdin/stdout until stdin ends; returns the exit code (0). */
export function serveRepairSandbox(): number {
  revokeEveryPermission();
  globalThis.addEventListener("unhandledrejection", (event) => event.preventDefault());
  const lines = new SyncLines();
  writeLine(JSON.stringify({ t: "ready" }));
  for (;;) {
    const line = lines.next();
    if (line === null) return 0;
    const message = JSON.parse(line) as CheckMessage | CaseListMessage | CaseCheckMessage;
    const error = message.t === "case-list"
      ? runCaseList(message, writeLine)
      : message.t === "case-check"
      ? runCaseCheck(message, writeLine)
      : runCheck(message);
    writeLine(JSON.stringify({ t: "done", error }));
  }
}

if (import.meta.main) Deno.exit(serveRepairSandbox());
