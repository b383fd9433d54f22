/**
 * The repair sandbox's child (host: sandbox.ts; docs/SANDBOX.md): runs each check line in a fresh `node:vm`
 * realm and ends it with `{t: "done", error}`. It imports only what `deno run --no-config` loads; all I/O is
 * synchronous (no event loop turn runs the repair outside the vm timeout). The self-contained realm drivers'
 * reports are claims the host replays on its own gateway; a case's checks module has a realm of its own.
 * @module
 */
import { createGateway, type Gateway, type RunEnd } from "./sandbox_gateway.ts";
import vm from "node:vm";

/** The driver left in the realm (frozen): calls `repair(client, request)` once per order, in order. */
interface RealmDriver {
  runAll(repair: unknown): Promise<void>;
}

/**
 * The realm's client and driver over its `gateway` replica; `bridge` sends one JSON line to the host.
 * Strings are cut at `maxText`; after `maxSleeps` sleeps or a call-limit refusal, calls are answered locally.
 */
export function createRealmDriver(
  bridge: (message: string) => void,
  gateway: Gateway,
  maxText: number,
  maxSleeps: number,
): RealmDriver {
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const assign = Object.assign;
  const freeze = Object.freeze;
  const ErrorType = Error;
  const isFinite = Number.isFinite;
  const toText = String;
  const orders = gateway.orders;
  const gatewayErrors: { error: unknown; token: number }[] = [];
  let sleeps = 0;
  let refused: unknown = null;

  type Scalar = string | number | boolean | null;
  function cut(text: string): string {
    return text.length > maxText ? text.slice(0, maxText) : text;
  }
  function plain(value: unknown): Scalar {
    if (value === null || value === undefined) return null;
    if (typeof value === "string") return cut(value);
    if (typeof value === "boolean") return value;
    if (typeof value === "number") return isFinite(value) ? value : toText(value);
    return "<" + typeof value + ">";
  }
  function send(message: unknown): void {
    bridge(stringify(message));
  }

  const client = freeze({
    charge(_request: unknown, options?: unknown): Promise<unknown> {
      if (refused !== null) return Promise.reject(refused);
      const opts = (typeof options === "object" && options !== null ? options : {}) as Record<
        string,
        unknown
      >;
      const call = { idempotencyKey: plain(opts.idempotencyKey), timeoutMs: plain(opts.timeoutMs) };
      const reply = parse(stringify(gateway.charge(call))); // a copy: the repair never gets the reported one

      send({ t: "charge", ...call, reply });
      if (reply.ok) return Promise.resolve(parse(stringify(reply.value)));
      const answer = reply.error;
      const error = assign(new ErrorType(answer.message), {
        name: "GatewayError",
        code: answer.code,
        status: answer.status === null ? undefined : answer.status,
      });
      if (answer.declineCode !== undefined) assign(error, { declineCode: answer.declineCode });
      gatewayErrors.push({ error, token: answer.token });
      if (answer.code === "sandbox_call_limit") refused = error;
      return Promise.reject(error);
    },
    sleep(ms: unknown): Promise<void> {
      sleeps += 1;
      if (sleeps <= maxSleeps) {
        gateway.sleep(plain(ms));
        send({ t: "sleep", ms: plain(ms) });
      }
      return Promise.resolve();
    },
  });

  function tokenOf(error: unknown): number | null {
    for (const entry of gatewayErrors) if (entry.error === error) return entry.token;
    return null;
  }

  function finish(end: RunEnd): void {
    gateway.end(end);
    send({ t: "end", ...end });
  }

  async function runAll(repair: unknown): Promise<void> {
    for (let index = 0; index < orders.length; index++) {
      gateway.begin(index);
      send({ t: "begin", order: index });
      if (typeof repair !== "function") {
        finish({
          state: "threw",
          error: { code: null, name: "TypeError", message: "the repair defines no function", token: null },
        });
        continue;
      }
      let end: RunEnd;
      try {
        const value = await repair(client, { ...orders[index] });
        const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
        end = { state: "returned", chargeId: typeof id === "string" ? cut(id) : null };
      } catch (error) {
        const isObject = typeof error === "object" && error !== null;
        end = {
          state: "threw",
          error: {
            code: isObject ? plain((error as { code?: unknown }).code) : null,
            name: cut(isObject ? toText((error as { name?: unknown }).name) : typeof error),
            message: cut(isObject ? toText((error as { message?: unknown }).message) : toText(error)),
            token: tokenOf(error),
          },
        };
      }
      finish(end); // outside the try: a repair that broke the realm's built-ins leaves the run pending
    }
  }

  return freeze({ runAll });
}

/** What the host sends with every message: the CPU timeout of each vm step, the longest reported text. */
interface Limits {
  cpuTimeoutMs: number;
  maxText: number;
}

/** `case-list`: the check names of a checks module. */
export interface CaseListMessage extends Limits {
  t: "case-list";
  checks: string;
}

/** `case-check`: one check of a checks module run on one repair. */
export interface CaseCheckMessage extends Omit<CaseListMessage, "t"> {
  t: "case-check";
  check: string;
  values: unknown;
  repair: string;
  functionName: string;
}

/** Most client calls one check answers; later calls are refused with `sandbox_call_limit`. */
export const MAX_CASE_CALLS = 1000;

/** A silent `console` for a realm. */
export const SILENT_CONSOLE =
  "var console = Object.freeze({ log() {}, info() {}, warn() {}, error() {}, debug() {} });";

/** A fresh null-prototype realm: no code from strings, microtasks run inside the CPU timeout. */
export function realm(name: string): vm.Context {
  return vm.createContext(Object.create(null), {
    name,
    codeGeneration: { strings: false, wasm: false },
    microtaskMode: "afterEvaluate",
  });
}

/** A value thrown out of a realm in one short line (reading it may run the repair's getters). */
export function describe(error: unknown, maxText: number): string {
  let text: string;
  try {
    const isObject = typeof error === "object" && error !== null;
    text = isObject
      ? `${String((error as { name?: unknown }).name)}: ${String((error as { message?: unknown }).message)}`
      : String(error);
  } catch {
    text = "a value that cannot be described";
  }
  return text.length > maxText ? text.slice(0, maxText) : text;
}

function loadChecks(source: string, timeout: number): vm.Context {
  const context = realm("checks");
  vm.runInContext(`${SILENT_CONSOLE}\n${source}`, context, { filename: "checks.js", timeout });
  vm.runInContext(
    `if (typeof SWEEP_CHECKS !== "object" || SWEEP_CHECKS === null || !Array.isArray(SWEEP_CHECKS.checks) ||
       typeof SWEEP_CHECKS.fake !== "function" || typeof SWEEP_CHECKS.judge !== "function") {
       throw new TypeError("the checks module defines no SWEEP_CHECKS = { checks: [...], fake(), judge() }");
     }`,
    context,
    { filename: "checks_shape.js", timeout },
  );
  return context;
}

/** Answers `case-list`: `{t: "list", names}` then the error (or null) for `done`. */
export function runCaseList(message: CaseListMessage, write: (line: string) => void): string | null {
  try {
    const context = loadChecks(message.checks, message.cpuTimeoutMs);
    const names = vm.runInContext(
      `JSON.stringify(SWEEP_CHECKS.checks.map(function (c) { return String(c && c.name); }))`,
      context,
      { filename: "checks_list.js", timeout: message.cpuTimeoutMs },
    );
    write(JSON.stringify({ t: "list", names: JSON.parse(String(names)) }));
    return null;
  } catch (error) {
    return `the checks module did not load: ${describe(error, message.maxText)}`;
  }
}

/** The repair realm's client and driver (self-contained: its source text is evaluated in the realm). */
export function createCaseDriver(
  bridge: (message: string) => string,
  methods: readonly string[],
  inputs: readonly unknown[],
  maxText: number,
): { runAll(repair: unknown): Promise<void> } {
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const assign = Object.assign;
  const freeze = Object.freeze;
  const ErrorType = Error;
  const toText = String;
  function cut(text: string): string {
    return text.length > maxText ? text.slice(0, maxText) : text;
  }
  function json(value: unknown): unknown {
    try {
      const text = stringify(value === undefined ? null : value);
      return text === undefined ? null : parse(text.length > 16 * maxText ? "null" : text);
    } catch {
      return "<not JSON>";
    }
  }
  const client: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of methods) {
    client[method] = (...args: unknown[]) => {
      const reply = parse(bridge(stringify({ t: "call", method, args: json(args) })));
      if (reply.ok) return Promise.resolve(reply.value);
      const error = assign(new ErrorType(reply.error.message), { name: reply.error.name });
      if (reply.error.code !== null) assign(error, { code: reply.error.code });
      return Promise.reject(error);
    };
  }
  freeze(client);
  async function runAll(repair: unknown): Promise<void> {
    for (let index = 0; index < inputs.length; index++) {
      let end: Record<string, unknown>;
      if (typeof repair !== "function") {
        end = {
          state: "threw",
          error: { name: "TypeError", message: "the repair defines no function", code: null },
        };
      } else {
        try {
          const value = await repair(client, parse(stringify(inputs[index])));
          end = { state: "returned", value: json(value) };
        } catch (error) {
          const isObject = typeof error === "object" && error !== null;
          const code = isObject ? (error as { code?: unknown }).code : undefined;
          end = {
            state: "threw",
            error: {
              name: cut(isObject ? toText((error as { name?: unknown }).name) : typeof error),
              message: cut(isObject ? toText((error as { message?: unknown }).message) : toText(error)),
              code: code === undefined ? null : json(code),
            },
          };
        }
      }
      bridge(stringify({ t: "end", index, end }));
    }
  }
  return freeze({ runAll });
}

/** The checks realm's handler of the driver's messages (evaluated in the checks realm). */
const HANDLER = `(function (maxCalls) {
  return function (text) {
    var m = JSON.parse(text);
    if (m.t === "end") { __record.runs[m.index] = m.end; return "null"; }
    var reply;
    if (__record.calls.length >= maxCalls) {
      __record.callLimitHit = true;
      reply = { ok: false, error: { name: "Error", message: "sandbox call limit", code: "sandbox_call_limit" } };
      return JSON.stringify(reply);
    }
    try {
      var f = Object.prototype.hasOwnProperty.call(__fake, m.method) ? __fake[m.method] : undefined;
      if (typeof f !== "function") throw Object.assign(new Error("no method " + m.method), { code: "no_such_method" });
      var value = f.apply(__fake, Array.isArray(m.args) ? m.args : []);
      reply = { ok: true, value: value === undefined ? null : JSON.parse(JSON.stringify(value)) };
    } catch (e) {
      var isObject = typeof e === "object" && e !== null;
      reply = { ok: false, error: {
        name: String(isObject && e.name ? e.name : "Error"),
        message: String(isObject ? e.message : e),
        code: isObject && e.code !== undefined ? e.code : null } };
    }
    __record.calls.push(Object.assign({ method: m.method, args: m.args }, reply));
    return JSON.stringify(reply);
  };
})`;

/** Runs one `case-check`: writes `{t: "verdict", passed, detail}`; returns the error (or null) for `done`. */
export function runCaseCheck(message: CaseCheckMessage, write: (line: string) => void): string | null {
  const timeout = message.cpuTimeoutMs;
  let checks: vm.Context;
  let methods: string[];
  let inputs: unknown[];
  let handle: (text: string) => string;
  try {
    checks = loadChecks(message.checks, timeout);
    const setup = vm.runInContext(
      `(function (name, valuesText) {
        var check = SWEEP_CHECKS.checks.filter(function (c) { return c && c.name === name; })[0];
        if (!check) throw new Error("no check named " + name);
        var values = JSON.parse(valuesText);
        var fake = SWEEP_CHECKS.fake(check, values);
        Object.defineProperty(globalThis, "__check", { value: check });
        Object.defineProperty(globalThis, "__values", { value: values });
        Object.defineProperty(globalThis, "__fake", { value: fake });
        Object.defineProperty(globalThis, "__record", { value: { calls: [], runs: [], callLimitHit: false } });
        var methods = Object.keys(fake).filter(function (k) { return typeof fake[k] === "function"; });
        return JSON.stringify({ methods: methods, inputs: Array.isArray(check.inputs) ? check.inputs : [null] });
      })`,
      checks,
      { filename: "checks_setup.js", timeout },
    ) as (name: string, values: string) => string;
    const parsed = JSON.parse(setup(message.check, JSON.stringify(message.values ?? {})));
    methods = parsed.methods;
    inputs = parsed.inputs;
    handle = vm.runInContext(HANDLER, checks, { filename: "checks_handler.js", timeout })(MAX_CASE_CALLS);
  } catch (error) {
    return `the checks module did not load: ${describe(error, message.maxText)}`;
  }
  const bridge = (text: unknown): string => (typeof text === "string" ? String(handle(text)) : "null");
  const driver = `(${createCaseDriver.toString()})(__bridge, ${JSON.stringify(methods)}, ` +
    `JSON.parse(${JSON.stringify(JSON.stringify(inputs))}), ${message.maxText})`;
  const failure = runRepair(bridge, driver, message.repair, message.functionName, message.maxText, timeout, [
    "case_driver.js",
    "inputs.js",
  ]);
  if (failure !== null) return failure;
  try {
    const verdict = JSON.parse(String(vm.runInContext(
      `(function () {
        var n = Array.isArray(__check.inputs) ? __check.inputs.length : 1;
        for (var i = 0; i < n; i++) if (!__record.runs[i]) __record.runs[i] = { state: "pending" };
        var v = SWEEP_CHECKS.judge(__check, __record, __values, __fake);
        return JSON.stringify({ passed: !!(v && v.passed === true), detail: String(v && v.detail) });
      })()`,
      checks,
      { filename: "checks_judge.js", timeout },
    )));
    const detail = String(verdict.detail).slice(0, message.maxText);
    write(JSON.stringify({ t: "verdict", passed: verdict.passed === true, detail }));
    return null;
  } catch (error) {
    return `the check's judge failed: ${describe(error, message.maxText)}`;
  }
}

/** One check as the host sends it (the host is trusted; its lines are not schema-checked here). */
interface CheckMessage extends Limits {
  t: "check";
  source: string;
  scenario: unknown;
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

/**
 * Loads `source` into a fresh repair realm beside `driver` (an expression over `__bridge`) and runs the
 * driver on its `functionName`: the error for `done`, or null. `files` name the driver and run scripts.
 */
function runRepair(
  bridge: unknown,
  driver: string,
  source: string,
  functionName: string,
  maxText: number,
  timeout: number,
  files: [string, string],
): string | null {
  const context = realm("repair");
  (context as Record<string, unknown>).__bridge = bridge;
  vm.runInContext(
    `${SILENT_CONSOLE}\nObject.defineProperty(globalThis, "__driver", { value: ${driver} });\n` +
      `delete globalThis.__bridge;`,
    context,
    { filename: files[0], timeout },
  );
  try {
    vm.runInContext(source, context, { filename: "repair.js", timeout });
  } catch (error) {
    return `the repair did not load: ${describe(error, maxText)}`;
  }
  try {
    vm.runInContext(
      `void __driver.runAll(typeof ${functionName} === "function" ? ${functionName} : undefined);`,
      context,
      { filename: files[1], timeout },
    );
  } catch (error) {
    return `the repair did not finish: ${describe(error, maxText)}`;
  }
  return null;
}

function runCheck(check: CheckMessage): string | null {
  const bridge = (message: unknown): void => {
    if (typeof message === "string") writeLine(message);
  };
  const scenario = JSON.stringify(JSON.stringify(check.scenario));
  const gateway = `(${createGateway.toString()})(JSON.parse(${scenario}))`;
  const driver =
    `(${createRealmDriver.toString()})(__bridge, ${gateway}, ${check.maxText}, ${check.maxSleeps})`;
  return runRepair(bridge, driver, check.source, "chargeWithRetry", check.maxText, check.cpuTimeoutMs, [
    "sandbox_driver.js",
    "scenario.js",
  ]);
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
