/**
 * Error classes that the CLI maps to exit codes: {@link UsageError} → 2, {@link CheckFailedError} → 1.
 * @module
 */

/** Bad input or usage: the CLI exits with code 2 and writes nothing. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A check ran and failed (verify found problems, check-only found differences): exit code 1. */
export class CheckFailedError extends Error {
  override name = "CheckFailedError";
}
