/**
 * One CLI command: the command table lists them and the demo runs suites through them (a leaf, so the
 * table and the demo do not import each other).
 *
 * @module
 */

/** One CLI command. */
export interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}
