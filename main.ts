/**
 * compaction-bench: a thin CLI over the library. It parses the command word, dispatches, and maps errors to
 * exit codes: 0 ok, 1 a check failed, 2 bad input or usage, 3 an internal error (a bug).
 *
 * @module
 */
import { CheckFailedError, UsageError } from "./src/errors.ts";
import { NotIJsonError } from "./src/store/canonical.ts";
import { BlobIntegrityError } from "./src/store/blob_store.ts";
import { PROGRAM } from "./src/version.ts";
import { terminalSafe } from "./src/core/printable.ts";
import { fsErrorCause } from "./src/fs_input.ts";
import { COMMANDS, usage } from "./src/cli/commands.ts";
import { didYouMean } from "./src/cli/option_suggest.ts";
import { REPAIR_SANDBOX_COMMAND, serveRepairSandbox } from "./src/cli/sweep/sandbox_child.ts";

/** Runs the CLI with `argv` and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [word, ...rest] = argv;
  if (word === undefined || word === "--help" || word === "-h" || word === "help") {
    console.log(usage());
    return word === undefined ? 2 : 0;
  }
  if (word === "--version" || word === "-V") {
    console.log(`${PROGRAM.name} ${PROGRAM.version}`);
    return 0;
  }
  const command = COMMANDS[word];
  if (!command) {
    console.error(
      `compaction-bench: unknown command '${word}'${didYouMean(word, Object.keys(COMMANDS))}\n\n${usage()}`,
    );
    return 2;
  }
  try {
    // Before the command's modules build their schemas (see the module).
    await import("./src/cli/zod_jitless.ts");
    return await command.run(rest);
  } catch (error) {
    // A damaged blob (altered, missing, a FIFO or symlink under its name) is a bad input, named by its path.
    if (
      error instanceof UsageError || error instanceof NotIJsonError || error instanceof BlobIntegrityError
    ) {
      console.error(`error: ${terminalSafe(cutLine(error.message), { keepLineBreaks: true })}`);
      return 2;
    }
    if (error instanceof CheckFailedError) {
      console.error(`check failed: ${error.message}`);
      return 1;
    }
    return reportUnexpected(error);
  }
}

/** The most characters of an error line: a huge bad value is never echoed whole. */
const MAX_ERROR_LINE_CHARS = 1000;

/** `message` cut to {@link MAX_ERROR_LINE_CHARS}, keeping its start and its end (where the help is named). */
function cutLine(message: string): string {
  if (message.length <= MAX_ERROR_LINE_CHARS) return message;
  const cut = message.length - 800 - 150;
  return `${message.slice(0, 800)}… (${cut} characters cut) …${message.slice(-150)}`;
}

function debugRequested(): boolean {
  try {
    return Deno.env.get("COMPACTION_BENCH_DEBUG") === "1";
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return false; // run without --allow-env
    throw error;
  }
}

/**
 * The last net: a file-system error no loader mapped still names its path and cause in one line (exit 2);
 * anything else is an internal error, printed as one line (exit 3), with the stack only when
 * `COMPACTION_BENCH_DEBUG=1`.
 */
function reportUnexpected(error: unknown): number {
  const debug = debugRequested();
  const firstLine = (text: string) => text.slice(0, 2000).split("\n", 1)[0];
  if (debug) console.error(error instanceof Error ? error.stack ?? String(error) : error);
  if (fsErrorCause(error) !== undefined) {
    if (!debug) console.error(`error: ${firstLine((error as Error).message)}`);
    return 2;
  }
  if (!debug) {
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    console.error(
      `internal error: ${firstLine(what)} (a bug; COMPACTION_BENCH_DEBUG=1 prints the stack trace)`,
    );
  }
  return 3;
}

if (import.meta.main) {
  // The single binary starts itself as the repair sandbox's child (see src/suites/sweep/sandbox.ts); only
  // then are the child's modules loaded.
  if (Deno.args.length === 1 && Deno.args[0] === REPAIR_SANDBOX_COMMAND) {
    Deno.exit(await serveRepairSandbox());
  }
  // A rejection nobody awaited would otherwise end the process with Deno's stack trace.
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    Deno.exit(reportUnexpected(event.reason));
  });
  Deno.exit(await main(Deno.args));
}
