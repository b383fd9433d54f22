/**
 * Building engines from spec strings: `truncate`, `hermes-like`, every declared method (../method_engine.ts),
 * the real competitors (adapters/ as workers), the framework libraries (frameworks/) and outside engines
 * (`exec:`, `exec+tools:`, `http:URL`).
 *
 * @module
 */
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { type ContextEngine, type EngineDeps, EngineError, EngineSkipped } from "./engine.ts";
import { createExecRecallEngine } from "./exec_recall_engine.ts";
import { createWorkerEngine } from "./outside_worker.ts";
import { createHermesLikeEngine } from "./hermes_like.ts";
import { createHttpEngine } from "./http_engine.ts";
import { createTruncateEngine } from "./tool_groups.ts";
import { createFrameworkEngine, FRAMEWORK_ENGINES } from "./frameworks/framework_engines.ts";
import { BUILTIN_ENGINES, REAL_COMPETITORS } from "./engine_names.ts";
import { declaredMethod, declaredMethodNames } from "../registry.ts";
import { createMethodEngine } from "../method_engine.ts";

function need<T>(value: T | undefined, spec: string, what: string): T {
  if (value === undefined) throw new UsageError(`engine '${spec}' needs a ${what}`);
  return value;
}

function competitor(spec: string, deps: EngineDeps, given: string): ContextEngine {
  const { script, env: own } = REAL_COMPETITORS[spec];
  // Without a daemon, lean-ctx runs its plugin's local fallback: another engine, named so (unless named).
  const fallback = spec === "lean-ctx" && !Deno.env.get("LEANCTX_URL") &&
    !!Deno.env.get("LEAN_CTX_PLUGIN_DIR");
  const name = fallback && given === spec ? "lean-ctx (local fallback)" : given;
  const argv = ["python3", assetPath(script)];
  if (deps.hermesDir !== undefined && spec !== "lean-ctx") argv.push("--hermes", deps.hermesDir);
  if (deps.chat !== undefined && spec !== "lean-ctx") argv.push("--model", deps.chat.model);
  const env: Record<string, string> = Object.fromEntries(
    own.filter((variable) => Deno.env.has(variable)).map((variable) => [variable, Deno.env.get(variable)!]),
  );
  // The adapters speak the worker protocol (adapters/outside_engine_io.py): one process for the engine's calls.
  const engine = createWorkerEngine(argv.join(" "), {
    probe: false,
    argv,
    name,
    timeoutMs: deps.timeoutMs,
    // Their locations are not secrets (they are never redacted); the daemon token is.
    env: { ...(env.LEANCTX_TOKEN !== undefined ? { LEANCTX_TOKEN: env.LEANCTX_TOKEN } : {}), ...deps.env },
    plainEnv: Object.fromEntries(Object.entries(env).filter(([variable]) => variable !== "LEANCTX_TOKEN")),
    endpoint: deps.endpoint,
    maxOutputBytes: deps.maxOutputBytes,
  });
  // No Python, or no adapter on disk (a compiled binary), is a missing prerequisite: a skip.
  const skipping = async <T>(task: () => Promise<T>): Promise<T> => {
    try {
      return await task();
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      if (error.message.includes("cannot start 'python3'")) {
        throw new EngineSkipped(`python3 is not available to run ${script}`);
      }
      if (error.message.includes("can't open file")) {
        throw new EngineSkipped(`${script} is not on disk in this build (run from a source checkout)`);
      }
      throw error;
    }
  };
  return {
    ...engine,
    prepare: () => skipping(() => engine.prepare!()),
    compress: (messages, opts) => skipping(() => engine.compress(messages, opts)),
  };
}

/** Creates the engine `spec` names (shown as `name`); an unknown spec or a missing model is a {@link UsageError}. */
export function createEngine(spec: string, deps: EngineDeps, name: string = spec): ContextEngine {
  const outside = {
    timeoutMs: deps.timeoutMs,
    env: deps.env,
    name,
    endpoint: deps.endpoint,
    // A user's engine never sees variables named like this program's provider credentials.
    endpointVariables: "OPENAI" as const,
    maxOutputBytes: deps.maxOutputBytes,
  };
  if (spec.startsWith("exec+tools:")) {
    return createExecRecallEngine(spec.slice("exec+tools:".length), outside);
  }
  // A user's engine that speaks the worker protocol runs as a worker; any other runs one process per call.
  if (spec.startsWith("exec:")) {
    return createWorkerEngine(spec.slice("exec:".length), { ...outside, probe: true });
  }
  if (spec.startsWith("http:") || spec.startsWith("https://")) {
    const url = spec.startsWith("http://") || spec.startsWith("https://") ? spec : spec.slice("http:".length);
    return { ...createHttpEngine(url, deps.timeoutMs), name };
  }
  if (Object.hasOwn(REAL_COMPETITORS, spec)) return competitor(spec, deps, name);
  if (Object.hasOwn(FRAMEWORK_ENGINES, spec)) {
    if (FRAMEWORK_ENGINES[spec].needsChat) need(deps.chat, spec, "chat model");
    return createFrameworkEngine(spec, name, deps.chat);
  }
  const method = declaredMethod(spec);
  if (method) return { ...createMethodEngine(method, deps), name };
  switch (spec) {
    case "truncate":
      return { ...createTruncateEngine(), name };
    case "hermes-like":
      return { ...createHermesLikeEngine(need(deps.chat, spec, "chat model")), name };
    default:
      throw new UsageError(
        `unknown engine '${spec}' (expected one of ${
          [...new Set([...BUILTIN_ENGINES, ...declaredMethodNames()])].join(", ")
        }, ${
          [...Object.keys(REAL_COMPETITORS), ...Object.keys(FRAMEWORK_ENGINES)].join(", ")
        }, exec:COMMAND, exec+tools:COMMAND, http:URL or NAME=SPEC)`,
      );
  }
}
