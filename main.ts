/**
 * compaction-bench: a thin CLI over the library. It parses the command word, dispatches, and maps errors to
 * exit codes: 0 ok, 1 a check failed, 2 bad input or usage.
 *
 * @module
 */
import { CheckFailedError, UsageError } from "./src/errors.ts";
import { NotIJsonError } from "./src/store/canonical.ts";
import { PROGRAM } from "./src/version.ts";
import { COMMANDS, usage } from "./src/cli/commands.ts";
import { REPAIR_SANDBOX_COMMAND, serveRepairSandbox } from "./src/suites/sweep/sandbox_child.ts";

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
    console.error(`compaction-bench: unknown command '${word}'\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError || error instanceof NotIJsonError) {
      console.error(`error: ${error.message}`);
      return 2;
    }
    if (error instanceof CheckFailedError) {
      console.error(`check failed: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) {
  // The single binary starts itself as the repair sandbox's child (see src/suites/sweep/sandbox.ts).
  if (Deno.args.length === 1 && Deno.args[0] === REPAIR_SANDBOX_COMMAND) Deno.exit(serveRepairSandbox());
  Deno.exit(await main(Deno.args));
}
