/**
 * Building engines from spec strings: `full`, `truncate`, `hermes-style`, `summary`, `jev`,
 * `jev+summary`, `exec:COMMAND ARGS` and `http:URL` (a bare `http://…` URL works too).
 *
 * @module
 */
import { UsageError } from "../../errors.ts";
import type { ContextEngine, EngineDeps } from "./engine.ts";
import { createExecEngine } from "./exec_engine.ts";
import { createFullEngine } from "./full.ts";
import { createHermesStyleEngine } from "./hermes_style.ts";
import { createHttpEngine } from "./http_engine.ts";
import { createJevEngine } from "./jev.ts";
import { createJevSummaryEngine } from "./jev_summary.ts";
import { createSummaryEngine } from "./summary.ts";
import { createTruncateEngine } from "./truncate.ts";

/** The built-in engine names, in report order. */
export const BUILTIN_ENGINES = ["full", "truncate", "hermes-style", "summary", "jev", "jev+summary"] as const;

function need<T>(value: T | undefined, spec: string, what: string): T {
  if (value === undefined) throw new UsageError(`engine '${spec}' needs a ${what}`);
  return value;
}

/** Creates the engine named by `spec`; an unknown spec or a missing model is a {@link UsageError}. */
export function createEngine(spec: string, deps: EngineDeps): ContextEngine {
  if (spec.startsWith("exec:")) return createExecEngine(spec.slice("exec:".length), deps.timeoutMs);
  if (spec.startsWith("http://") || spec.startsWith("https://")) {
    return createHttpEngine(spec, deps.timeoutMs);
  }
  if (spec.startsWith("http:")) return createHttpEngine(spec.slice("http:".length), deps.timeoutMs);
  switch (spec) {
    case "full":
      return createFullEngine();
    case "truncate":
      return createTruncateEngine();
    case "hermes-style":
      return createHermesStyleEngine(need(deps.chat, spec, "chat model"));
    case "summary":
      return createSummaryEngine(need(deps.chat, spec, "chat model"));
    case "jev":
      return createJevEngine(need(deps.decision, spec, "decision model"));
    case "jev+summary":
      return createJevSummaryEngine(
        need(deps.decision, spec, "decision model"),
        need(deps.chat, spec, "chat model"),
      );
    default:
      throw new UsageError(
        `unknown engine '${spec}' (expected one of ${BUILTIN_ENGINES.join(", ")}, exec:COMMAND or http:URL)`,
      );
  }
}
