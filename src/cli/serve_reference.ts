/**
 * `compaction-bench serve-reference`: the reference model on 127.0.0.1 until SIGINT or SIGTERM.
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { parseOptions } from "./args.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { parseFaultSpec } from "../models/reference/faults.ts";
import { startReferenceServer } from "../models/reference/server.ts";
import { CLI } from "../core/program_name.ts";

export const SERVE_REFERENCE_HELP = `Usage: ${CLI} serve-reference [options]

Serves the reference model (a deterministic, offline, lexical baseline) on 127.0.0.1:
POST /v1/chat/completions (OpenAI shape) and POST /v1/systemone (System One shape).
Prints the base URL (e.g. http://127.0.0.1:PORT/v1) and serves until SIGINT/SIGTERM.

Options:
  --port N          TCP port (default 0: a free port; at most 65535)
  --faults SPEC     seeded faults, e.g. 429=0.1,500=0.1,hang=0.05,drop=0.05,malformed=0.05,
                    truncated=0.05,schema=0.05 (rates in [0,1], sum <= 1; first=N limits faults
                    to the first N attempts of each distinct request)
  --seed N          seed of the fault mode (default 0, at most 9007199254740991)
  --delay-ms N      fixed delay before every answer (default 0, at most 3600000)
  --tokenizer PATH  Hugging Face tokenizer directory (or its tokenizer.json) for usage counts (default: Qwen3, shipped)
  -h, --help        show this help
`;

const Integer = (name: string, max: number) =>
  z.string().regex(/^\d+$/, `${name} must be a non-negative integer`).transform(Number).pipe(
    z.number().max(max, `${name} must be at most ${max}`),
  );

const OPTIONS = {
  port: Integer("port", 65535).default(0),
  faults: z.string().optional(),
  seed: Integer("seed", Number.MAX_SAFE_INTEGER).default(0),
  "delay-ms": Integer("delay-ms", 3_600_000).default(0),
  tokenizer: z.string().min(1).optional(),
};

/** Hooks for embedding and tests: stop on `signal` instead of process signals, print through `print`. */
export interface ServeReferenceHooks {
  signal?: AbortSignal;
  print?: (line: string) => void;
}

export async function serveReferenceCommand(
  argv: string[],
  hooks: ServeReferenceHooks = {},
): Promise<number> {
  const print = hooks.print ?? ((line: string) => console.log(line));
  const { options, positionals } = parseOptions("serve-reference", argv, OPTIONS);
  if (options.help) {
    print(SERVE_REFERENCE_HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(`serve-reference: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  let faults;
  if (options.faults !== undefined) {
    try {
      faults = parseFaultSpec(options.faults);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(`serve-reference: --faults: ${error.message}`);
      throw error;
    }
  }
  const counter = await loadTokenCounter(options.tokenizer);
  const server = await startReferenceServer({
    counter,
    port: options.port,
    faults,
    seed: options.seed,
    delayMs: options["delay-ms"],
  }).catch((error) => {
    const code = (error as { code?: unknown }).code;
    if (error instanceof Deno.errors.AddrInUse || code === "EADDRINUSE") {
      throw new UsageError(
        `serve-reference: port ${options.port} is in use (something already listens on 127.0.0.1:${options.port}); ` +
          "pick another --port, or --port 0 for a free one",
      );
    }
    if (error instanceof Deno.errors.PermissionDenied || code === "EACCES") {
      throw new UsageError(
        `serve-reference: --port ${options.port}: not permitted (${(error as Error).message})`,
      );
    }
    throw error;
  });
  print(server.baseUrl);
  const stopped = new AbortController();
  const stop = () => stopped.abort();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const listening = hooks.signal === undefined;
  if (listening) { for (const name of signals) Deno.addSignalListener(name, stop); }
  hooks.signal?.addEventListener("abort", stop, { once: true });
  if (hooks.signal?.aborted) stop();
  try {
    await new Promise<void>((resolve) =>
      stopped.signal.addEventListener("abort", () => resolve(), { once: true })
    );
  } finally {
    if (listening) { for (const name of signals) Deno.removeSignalListener(name, stop); }
    await server.close();
  }
  return 0;
}
