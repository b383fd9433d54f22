/**
 * The names `--engine` and `--methods` know without building an engine (so a run that names no engine never
 * loads create.ts and every engine's modules), and how an `--engine NAME=SPEC` value is read.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";

/** The engines `engines run` runs by default, in report order (full, summary, jev, jev+summary: methods). */
export const BUILTIN_ENGINES = ["full", "truncate", "hermes-like", "summary", "jev", "jev+summary"] as const;

/**
 * The real competitors: an adapter in adapters/ run with `python3` and the variables of this process it is
 * given (never a provider key). hermes-lcm and lean-ctx serve recall tools (lean-ctx's local fallback offers
 * the plugin's own, which need the daemon, so they answer errors).
 */
export const REAL_COMPETITORS: Readonly<Record<string, { script: string; env: readonly string[] }>> = {
  "hermes": { script: "adapters/hermes_context_compressor.py", env: ["HERMES_AGENT_DIR", "PYTHONPATH"] },
  "hermes-lcm": {
    script: "adapters/hermes_lcm.py",
    env: ["HERMES_AGENT_DIR", "HERMES_LCM_DIR", "PYTHONPATH"],
  },
  "lean-ctx": {
    script: "adapters/lean_ctx.py",
    env: ["LEANCTX_URL", "LEANCTX_TOKEN", "LEAN_CTX_PLUGIN_DIR"],
  },
};

/** A name the tables can show: letters, digits and `._+-`, starting with a letter or digit. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/** One `--engine` value: the name the tables show and the spec the engine is built from. */
export type EngineSelection = { name: string; spec: string };

/**
 * Reads an `--engine` value: `NAME=SPEC` when what comes before the first `=` is a plain name (so
 * `exec:tool --flag=x` stays whole), else the spec alone, named after itself.
 */
export function parseEngineSelection(value: string): EngineSelection {
  const at = value.indexOf("=");
  if (at > 0 && NAME_PATTERN.test(value.slice(0, at))) {
    const spec = value.slice(at + 1);
    if (spec.length === 0) throw new UsageError(`--engine ${value}: nothing after '='`);
    return { name: value.slice(0, at), spec };
  }
  return { name: value, spec: value };
}
