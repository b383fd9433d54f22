/**
 * The `--bootstrap N` option shared by the run commands: resamples of the confidence intervals.
 *
 * @module
 */
import { DEFAULT_RESAMPLES } from "../analysis/bootstrap.ts";
import { intOption } from "./numbers.ts";

/** `--bootstrap N`: bootstrap resamples, 100 to 1,000,000. */
export const bootstrapOption = intOption(100, 1_000_000);

/** The help line of `--bootstrap`. */
export const BOOTSTRAP_OPTION_HELP =
  `  --bootstrap N        bootstrap resamples of the 95% confidence intervals (default ${DEFAULT_RESAMPLES}, 100 to 1000000)`;
