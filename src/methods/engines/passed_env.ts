/**
 * The variables a user passes to an outside process by name (`--engine-env NAME`, `--agent-env NAME`):
 * read from this process's environment, never printed; a name that is not a variable name or is not set
 * is a usage error naming the option.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";

/** Names a variable option may pass: shell-style identifiers. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The values of `names` in this process's environment; `option` (e.g. `--agent-env`) names errors. */
export function readPassedEnv(names: readonly string[], option: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    if (!ENV_NAME.test(name)) throw new UsageError(`${option} ${name}: not a variable name`);
    const value = Deno.env.get(name);
    if (value === undefined) throw new UsageError(`${option} ${name}: the variable is not set`);
    env[name] = value;
  }
  return env;
}
