/**
 * `hotpot collect --hermes DIR [--hermes-python PY]`, rewritten before parsing to the `--agent exec:` of
 * `adapters/hermes_collect.py` it means (and so recorded and resumed as that).
 * @module
 */
import { resolve } from "node:path";
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { statInputDirectory } from "../../fs_input.ts";

/** The adapter that runs the real Hermes Agent for one question, relative to the project root. */
export const HERMES_COLLECT_ADAPTER = "adapters/hermes_collect.py";

function quote(word: string): string {
  // Single quotes keep everything literally (split_command.ts); a quote inside closes, escapes and reopens.
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

async function adapterPath(): Promise<string> {
  const path = assetPath(HERMES_COLLECT_ADAPTER);
  if (!Deno.build.standalone) return path;
  const dir = await Deno.makeTempDir({ prefix: "compaction-bench-hermes-" });
  const copy = `${dir}/hermes_collect.py`;
  await Deno.writeFile(copy, await Deno.readFile(path));
  return copy;
}

/** Takes `--hermes X` or `--hermes=X` out of `argv`; returns the value (undefined when absent). */
function take(argv: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") break;
    let found: string | undefined;
    if (argv[i] === name) {
      if (i + 1 >= argv.length) throw new UsageError(`${name} needs a value`);
      found = argv[i + 1];
      argv.splice(i, 2);
    } else if (argv[i].startsWith(`${name}=`)) {
      found = argv[i].slice(name.length + 1);
      argv.splice(i, 1);
    } else continue;
    if (value !== undefined) throw new UsageError(`${name} given twice`);
    value = found;
    i--;
  }
  return value;
}

/**
 * `argv` with `--hermes DIR [--hermes-python PY]` replaced by the `--agent exec:` it means; refuses
 * `--hermes-python` alone, `--hermes` with `--agent`, and a DIR that is not a directory.
 * @example
 * ```ts
 * await hermesAgentArgv(["--hermes", "/opt/hermes", "--reference"]);
 * // ["--reference", "--agent", "exec:'python3' '/…/adapters/hermes_collect.py' '--hermes' '/opt/hermes'"]
 * ```
 */
export async function hermesAgentArgv(givenArgv: readonly string[]): Promise<string[]> {
  const argv = [...givenArgv];
  const dir = take(argv, "--hermes");
  const python = take(argv, "--hermes-python");
  if (dir === undefined) {
    if (python !== undefined) throw new UsageError("--hermes-python needs --hermes DIR");
    return argv;
  }
  if (argv.some((word) => word === "--agent" || word.startsWith("--agent="))) {
    throw new UsageError(
      "--hermes DIR is --agent exec:'… adapters/hermes_collect.py --hermes DIR': give one",
    );
  }
  await statInputDirectory(dir, "--hermes");
  const words = [python ?? "python3", await adapterPath(), "--hermes", resolve(dir)];
  return [...argv, "--agent", `exec:${words.map(quote).join(" ")}`];
}
