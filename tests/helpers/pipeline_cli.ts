/**
 * Subprocess entry of the test pipeline: `deno run -A tests/helpers/pipeline_cli.ts (--output DIR | --resume
 * DIR) [--stages N] [--delay-ms MS]`. Prints the outcome (executor counts, which stages ran) as one JSON line
 * on stdout; exits 2 on a usage error (e.g. an existing output or a finished run), like the real CLI.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { UsageError } from "../../src/errors.ts";
import { runPipeline } from "./pipeline.ts";

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      output: { type: "string" },
      resume: { type: "string" },
      stages: { type: "string", default: "20" },
      "delay-ms": { type: "string", default: "0" },
    },
    strict: true,
  });
  try {
    const outcome = await runPipeline({
      output: values.output,
      resume: values.resume,
      stages: Number(values.stages),
      delayMs: Number(values["delay-ms"]),
    });
    console.log(JSON.stringify(outcome));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}`);
    Deno.exit(2);
  }
}
