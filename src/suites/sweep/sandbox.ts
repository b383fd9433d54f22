/**
 * The host side of the repair sandbox (child: sandbox_child.ts; docs/SANDBOX.md says what each layer stops):
 * one `prlimit`ed child without permissions at a time, SIGKILL at each deadline, each child line byte-capped,
 * zod-checked (sandbox_channel.ts) and replayed on the host's own gateway of the scripted scenario, whose
 * record gives the verdict.
 * @module
 */
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { UsageError } from "../../errors.ts";
import { parseJson } from "../../core/json_read.ts";
import {
  type ChildMessage,
  ChildMessageSchema,
  type GatewayScenario,
  GatewayScenarioSchema,
  MAX_REPORTED_TEXT,
} from "./sandbox_channel.ts";
import { createGateway, type GatewayObservation, REPAIR_SANDBOX_COMMAND } from "./sandbox_gateway.ts";
import pLimit from "p-limit";

/** Sleeps per check the realm driver reports; later ones are answered without a message. */
export const MAX_REPORTED_SLEEPS = 1000;
/** Longest line the host reads from the child (bytes, newline excluded). */
export const MAX_CHILD_LINE_BYTES = 64 * 1024;
/** Most lines the host reads from the child for one check (an honest driver sends at most ~1,100). */
export const MAX_CHILD_LINES_PER_CHECK = 5000;

export type { GatewayScenario } from "./sandbox_channel.ts";
export { type GatewayObservation, REPAIR_SANDBOX_COMMAND } from "./sandbox_gateway.ts";

/** RLIMIT_DATA of the child (bytes): 1 GiB. Deno needs more than 512 MB to start. */
export const CHILD_DATA_LIMIT_BYTES = 1024 ** 3;
/** V8 old-space limit of the child (MB). */
export const CHILD_HEAP_LIMIT_MB = 256;

/** Limits of a sandbox run (ms): each check's deadline (2000), each vm step's CPU (500), start-up (30000). */
export interface SandboxLimits {
  deadlineMs?: number;
  cpuTimeoutMs?: number;
  startupMs?: number;
}

/** The outcome of one check. */
export type SandboxOutcome =
  | { status: "completed"; observation: GatewayObservation; elapsed_ms: number }
  | { status: "failed"; error: string; elapsed_ms: number }
  | { status: "deadline"; error: string; elapsed_ms: number };

/** How a child is started (a test may start something else to play a hostile child). */
export interface SandboxLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The sandbox child could not be started or did not get ready; no answer's code had been sent to it. */
export class SandboxUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SandboxUnavailableError";
  }
}

const CHILD_MODULE = new URL("./sandbox_child.ts", import.meta.url);

function envValue(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return undefined;
    throw error;
  }
}

/** The launch this program uses: `prlimit` around `deno run` of the child module, or the binary itself. */
export function defaultLaunch(): SandboxLaunch {
  const env: Record<string, string> = { NO_COLOR: "1", PATH: envValue("PATH") ?? "/usr/bin:/bin" };
  for (const name of ["HOME", "DENO_DIR"]) {
    const value = envValue(name);
    if (value !== undefined) env[name] = value;
  }
  const heap = `--max-old-space-size=${CHILD_HEAP_LIMIT_MB}`;
  let child: string[];
  if (Deno.build.standalone) {
    env.DENO_V8_FLAGS = heap;
    child = [Deno.execPath(), REPAIR_SANDBOX_COMMAND];
  } else {
    child = [
      Deno.execPath(),
      "run",
      "--no-config",
      "--no-lock",
      "--no-remote",
      "--no-npm",
      "--no-prompt",
      "--quiet",
      `--v8-flags=${heap}`,
      fileURLToPath(CHILD_MODULE),
    ];
  }
  return { command: "prlimit", args: [`--data=${CHILD_DATA_LIMIT_BYTES}`, "--", ...child], env };
}

type Read = { kind: "line"; text: string } | { kind: "end" } | { kind: "too_long" };

/** Reads a child's stdout line by line, never holding more than one capped line. */
class BoundedLines {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);
  #decoder = new TextDecoder();

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  async next(): Promise<Read> {
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline >= 0) {
        if (newline > MAX_CHILD_LINE_BYTES) return { kind: "too_long" };
        const text = this.#decoder.decode(this.#buffer.subarray(0, newline));
        this.#buffer = this.#buffer.slice(newline + 1);
        return { kind: "line", text };
      }
      if (this.#buffer.length > MAX_CHILD_LINE_BYTES) return { kind: "too_long" };
      const { value, done } = await this.#reader.read();
      if (done) return { kind: "end" };
      const joined = new Uint8Array(this.#buffer.length + value.length);
      joined.set(this.#buffer);
      joined.set(value, this.#buffer.length);
      this.#buffer = joined;
    }
  }

  cancel(): void {
    this.#reader.cancel().catch(() => {});
  }
}

/** One line of a child as a message, or the protocol violation it is. */
function parseChildLine(text: string): ChildMessage | string {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (error) {
    if (error instanceof SyntaxError) return "a line that is not JSON";
    throw error;
  }
  const parsed = ChildMessageSchema.safeParse(json);
  return parsed.success ? parsed.data : `a message of the wrong shape (${parsed.error.issues[0].message})`;
}

class SandboxChild {
  /** Set once the child cannot be given another check. */
  broken = false;
  readonly #process: Deno.ChildProcess;
  readonly #lines: BoundedLines;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #encoder = new TextEncoder();
  #killedFor: string | undefined;

  private constructor(process: Deno.ChildProcess) {
    this.#process = process;
    this.#lines = new BoundedLines(process.stdout);
    this.#writer = process.stdin.getWriter();
  }

  /** Starts a child and waits for its `ready` line. */
  static async start(launch: SandboxLaunch, startupMs: number): Promise<SandboxChild> {
    const process = new Deno.Command(launch.command, {
      args: launch.args,
      clearEnv: true,
      env: launch.env,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const child = new SandboxChild(process);
    const timer = setTimeout(() => child.#kill(`not ready within ${startupMs} ms`), startupMs);
    try {
      const first = await child.#lines.next();
      if (first.kind === "line" && first.text === '{"t":"ready"}') return child;
      const why = child.#killedFor ??
        (first.kind === "end" ? await child.#exitDescription() : "no ready line");
      await child.dispose();
      throw new SandboxUnavailableError(`the repair sandbox process did not start: ${why}`);
    } finally {
      clearTimeout(timer);
    }
  }

  #kill(reason: string): void {
    this.#killedFor ??= reason;
    this.broken = true;
    try {
      this.#process.kill("SIGKILL");
    } catch (error) {
      if (!(error instanceof TypeError)) throw error; // already exited
    }
  }

  async #exitDescription(): Promise<string> {
    const status = await this.#process.status;
    if (status.signal !== null) return `killed by ${status.signal}`;
    return `exited with code ${status.code}`;
  }

  async #send(message: unknown): Promise<boolean> {
    try {
      await this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.BrokenPipe || error instanceof TypeError) return false;
      throw error;
    }
  }

  /**
   * Sends `message` with the CPU timeout and text limit, then hands each of the child's lines (byte-capped,
   * counted, zod-checked) to `take` until it returns an outcome (a string: a protocol violation). Never throws
   * for anything the child does.
   */
  async #converse<T extends object>(
    message: Record<string, unknown>,
    limits: Required<SandboxLimits>,
    running: string,
    take: (line: ChildMessage) => T | string | undefined,
  ): Promise<T | { status: "failed" | "deadline"; error: string }> {
    const violation = (why: string) => {
      this.#kill(why);
      return { status: "failed" as const, error: `the sandbox process broke the channel protocol: ${why}` };
    };
    const timer = setTimeout(
      () => this.#kill(`no answer within the ${limits.deadlineMs} ms deadline`),
      limits.deadlineMs,
    );
    try {
      await this.#send({ ...message, cpuTimeoutMs: limits.cpuTimeoutMs, maxText: MAX_REPORTED_TEXT });
      for (let count = 1;; count++) {
        const read = await this.#lines.next();
        if (read.kind === "end") {
          this.broken = true;
          if (this.#killedFor !== undefined) return { status: "deadline", error: this.#killedFor };
          const how = await this.#exitDescription();
          return { status: "failed", error: `the sandbox process died running the ${running} (${how})` };
        }
        if (this.#killedFor !== undefined) return { status: "deadline", error: this.#killedFor };
        if (read.kind === "too_long") return violation(`a line over ${MAX_CHILD_LINE_BYTES} bytes`);
        if (count > MAX_CHILD_LINES_PER_CHECK) return violation(`over ${MAX_CHILD_LINES_PER_CHECK} lines`);
        const line = parseChildLine(read.text);
        const outcome = typeof line === "string" ? line : take(line);
        if (typeof outcome === "string") return violation(outcome);
        if (outcome !== undefined) return outcome;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs one check; never throws for anything the child does. */
  async runCheck(
    source: string,
    scenario: GatewayScenario,
    limits: Required<SandboxLimits>,
  ): Promise<SandboxOutcome> {
    const parsed = GatewayScenarioSchema.parse(scenario); // the host's gateway replays the child's claims
    const gateway = createGateway(parsed);
    const started = performance.now();
    const check = { t: "check", source, scenario: parsed, maxSleeps: MAX_REPORTED_SLEEPS };
    const outcome = await this.#converse(check, limits, "repair", (message) => {
      switch (message.t) {
        case "ready":
          return "a second ready";
        case "begin":
          return gateway.begin(message.order) ?? undefined;
        case "charge": {
          const answer = gateway.charge(message);
          if (isDeepStrictEqual(answer, message.reply)) return undefined;
          return `the child answered a charge with ${JSON.stringify(message.reply).slice(0, 200)}; ` +
            `the gateway's answer is ${JSON.stringify(answer)}`;
        }
        case "sleep":
          gateway.sleep(message.ms);
          return undefined;
        case "end":
          return gateway.end(
            message.state === "returned"
              ? { state: "returned", chargeId: message.chargeId }
              : { state: "threw", error: message.error },
          ) ?? undefined;
        case "done":
          return message.error !== null
            ? { status: "failed" as const, error: message.error }
            : { status: "completed" as const, observation: gateway.observe() };
        case "verdict":
        case "list":
          return `a ${message.t} line in a payment check`;
      }
    });
    return { ...outcome, elapsed_ms: Math.round(performance.now() - started) };
  }

  /** Sends one `case-list`/`case-check` message, reads its one result line and its `done`; never throws. */
  exchange(message: Record<string, unknown>, limits: Required<SandboxLimits>) {
    let result: Extract<ChildMessage, { t: "verdict" | "list" }> | undefined;
    return this.#converse(message, limits, "check", (line) => {
      if ((line.t === "verdict" || line.t === "list") && result === undefined) {
        result = line;
        return undefined;
      }
      if (line.t !== "done") return `an unexpected ${line.t} line`;
      if (line.error !== null) return { status: "failed" as const, error: line.error };
      if (result === undefined) return "done without a result";
      return { status: "completed" as const, result };
    });
  }

  /** Ends the child: closes its stdin (it exits at the end of input) and kills it if it does not. */
  async dispose(): Promise<void> {
    if (this.broken) this.#kill("disposed");
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => this.#kill("did not exit"), 2000);
    try {
      await this.#process.status;
    } finally {
      clearTimeout(timer);
      this.#lines.cancel();
    }
  }
}

/** One child at a time in this process: each may use up to {@link CHILD_DATA_LIMIT_BYTES}. */
const oneChildAtATime = pLimit(1);

/** The outcome of one case-module message (see {@link SandboxChild.exchange}). */
export type CaseExchange = Awaited<ReturnType<SandboxChild["exchange"]>>;

/** One outcome per item, sent in turn to a child (a fresh one after one that broke). */
function inSandboxChildren<T, O>(
  items: readonly T[],
  limits: SandboxLimits,
  launch: SandboxLaunch,
  send: (child: SandboxChild, item: T, limits: Required<SandboxLimits>) => Promise<O>,
): Promise<O[]> {
  const full: Required<SandboxLimits> = {
    deadlineMs: limits.deadlineMs ?? 2000,
    cpuTimeoutMs: limits.cpuTimeoutMs ?? 500,
    startupMs: limits.startupMs ?? 30_000,
  };
  return oneChildAtATime(async () => {
    const outcomes: O[] = [];
    let child: SandboxChild | undefined;
    try {
      for (const item of items) {
        child ??= await SandboxChild.start(launch, full.startupMs);
        outcomes.push(await send(child, item, full));
        if (child.broken) {
          await child.dispose();
          child = undefined;
        }
      }
    } finally {
      await child?.dispose();
    }
    return outcomes;
  });
}

/** One outcome per case-module message, sent in turn; throws only {@link SandboxUnavailableError}. */
export function exchangeInSandbox(
  messages: readonly Record<string, unknown>[],
  limits: SandboxLimits = {},
  launch: SandboxLaunch = defaultLaunch(),
): Promise<CaseExchange[]> {
  return inSandboxChildren(messages, limits, launch, (child, message, full) => child.exchange(message, full));
}

/** One outcome per scenario run on `source`; throws only {@link SandboxUnavailableError} (nothing sent). */
export function runChecksInSandbox(
  source: string,
  scenarios: readonly GatewayScenario[],
  limits: SandboxLimits = {},
  launch: SandboxLaunch = defaultLaunch(),
): Promise<SandboxOutcome[]> {
  return inSandboxChildren(
    scenarios,
    limits,
    launch,
    (child, scenario, full) => child.runCheck(source, scenario, full),
  );
}

/** Runs `source` against one scenario in a fresh sandbox child; see {@link runChecksInSandbox}. */
export async function runInSandbox(
  source: string,
  scenario: GatewayScenario,
  limits: SandboxLimits = {},
  launch?: SandboxLaunch,
): Promise<SandboxOutcome> {
  const [outcome] = await runChecksInSandbox(source, [scenario], limits, launch);
  return outcome;
}

const PROBE_REPAIR = `async function chargeWithRetry(client, request) {
  return client.charge(request, { idempotencyKey: "probe", timeoutMs: 1 });
}`;

/** Runs a trivial repair before a sweep writes anything; a sandbox that cannot run: {@link UsageError}. */
export async function assertSandboxAvailable(): Promise<void> {
  const scenario: GatewayScenario = {
    charges: [{
      request: { orderId: "ord_PROBE", amount: 1, currency: "EUR", customerId: "cus_PROBE" },
      outcomes: ["ok"],
    }],
  };
  let outcome: SandboxOutcome;
  try {
    outcome = await runInSandbox(PROBE_REPAIR, scenario, { deadlineMs: 30_000 });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError("the repair sandbox needs `prlimit` (util-linux) on PATH; it was not found", {
        cause: error,
      });
    }
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new UsageError(
        `the repair sandbox needs permission to run prlimit (--allow-run=prlimit): ${error.message}`,
        { cause: error },
      );
    }
    if (error instanceof SandboxUnavailableError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  const charged = outcome.status === "completed" && outcome.observation.runs[0]?.chargeId === "ch_fake0001";
  if (!charged) {
    throw new UsageError(
      `the repair sandbox does not work here: a trivial repair gave ${
        outcome.status === "completed" ? JSON.stringify(outcome.observation.runs) : outcome.error
      }`,
    );
  }
}
