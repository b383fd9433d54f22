/**
 * Builds the single binary `dist/compaction-bench` with `deno compile`, embedding every asset the program reads
 * at run time (`fixtures/`: tokenizer and corpora; `src/`: workers and the sources the program hashes for its
 * identity; `main.ts`). The binary needs no network and no files beside it.
 *
 * `deno compile` needs `denort`, the bare runtime, which it normally downloads from Deno's servers (unreachable
 * here). Point `DENORT_BIN` at a real `denort` for offline builds; it is passed through the environment. A
 * `DENORT_BIN` that is the full `deno` CLI builds a file that only behaves as plain `deno`, so it is refused.
 *
 * Usage: `deno run --allow-read --allow-write --allow-env --allow-run scripts/compile.ts [--output PATH]`
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

/** The project root (where main.ts lives). */
export const PROJECT_ROOT: string = fileURLToPath(new URL("../", import.meta.url));

/** Where `deno task compile` puts the binary, relative to the project root. */
export const DEFAULT_BINARY = "dist/compaction-bench";

/**
 * Permissions the binary runs with. The network is not limited to loopback because `--live` runs must reach
 * the configured providers (on an evaluation box often an internal endpoint); without `--live` the program
 * only ever talks to its own reference model on 127.0.0.1.
 */
export const BINARY_PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-sys",
  "--allow-run",
  "--unstable-worker-options",
] as const;

/** Paths embedded besides the module graph, relative to the project root. */
export const EMBEDDED_PATHS = ["fixtures", "src", "main.ts", "deno.lock", "adapters"] as const;

/** The `deno` arguments that build the binary at `output`. */
export function compileArgs(output: string): string[] {
  return [
    "compile",
    ...BINARY_PERMISSIONS,
    ...EMBEDDED_PATHS.flatMap((path) => ["--include", path]),
    "--output",
    output,
    "main.ts",
  ];
}

/**
 * Why `denortBin` cannot serve as the runtime of a compiled binary, or null when it is a real `denort`: unset,
 * missing, not a file, or the `deno` CLI itself (its `--version` starts with `deno `).
 */
export async function denortProblem(denortBin: string | undefined): Promise<string | null> {
  if (!denortBin) return "DENORT_BIN is not set, and deno cannot download denort here (no network)";
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(denortBin);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return `DENORT_BIN=${denortBin} does not exist`;
    throw error;
  }
  if (!info.isFile) return `DENORT_BIN=${denortBin} is not a file`;
  const child = new Deno.Command(denortBin, {
    args: ["--version"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { DENO_NO_UPDATE_CHECK: "1" },
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  let output: Deno.CommandOutput;
  try {
    output = await child.output();
  } finally {
    clearTimeout(timer);
  }
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (/^deno /m.test(text)) {
    return `DENORT_BIN=${denortBin} is the deno CLI (\`--version\` says "${
      text.split("\n")[0]
    }"), not denort: ` +
      "the binary would only behave as plain deno";
  }
  return null;
}

/** An unmissable banner around `lines`. */
export function banner(lines: string[]): string {
  const width = Math.max(...lines.map((l) => l.length)) + 4;
  const bar = "#".repeat(width);
  return [bar, ...lines.map((l) => `# ${l.padEnd(width - 4)} #`), bar].join("\n");
}

/** Builds the binary at `output` (relative to the project root) with `denortBin`; throws when deno fails. */
export async function compileBinary(output: string, denortBin: string): Promise<void> {
  const status = await new Deno.Command(Deno.execPath(), {
    args: compileArgs(output),
    cwd: PROJECT_ROOT,
    env: { DENORT_BIN: denortBin },
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!status.success) throw new Error(`deno compile failed with exit code ${status.code}`);
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { output: { type: "string", default: DEFAULT_BINARY }, help: { type: "boolean", short: "h" } },
    strict: true,
  });
  if (values.help) {
    console.log(`scripts/compile.ts [--output PATH]   (default ${DEFAULT_BINARY})

Builds the single binary with deno compile. Needs DENORT_BIN pointing at a real denort runtime.`);
    Deno.exit(0);
  }
  const denortBin = Deno.env.get("DENORT_BIN");
  const problem = await denortProblem(denortBin);
  if (problem !== null) {
    console.error(banner([
      "COMPILE NOT POSSIBLE: no denort runtime available",
      problem,
      "deno compile needs denort; set DENORT_BIN=/path/to/denort (the denort release",
      "archive for this deno version and platform) and run `deno task compile` again.",
    ]));
    Deno.exit(1);
  }
  await compileBinary(values.output, denortBin!);
  console.log(`built ${values.output}`);
}
