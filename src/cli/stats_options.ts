/**
 * The `--bootstrap N` option shared by the run commands.
 * @module
 */
import { DEFAULT_RESAMPLES } from "../analysis/bootstrap.ts";
import { intOption } from "./numbers.ts";

export const bootstrapOption = intOption(100, 1_000_000);

export const BOOTSTRAP_OPTION_HELP =
  `  --bootstrap N        bootstrap resamples of the 95% confidence intervals (default ${DEFAULT_RESAMPLES}, 100 to 1000000)`;
