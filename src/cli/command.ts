/**
 * One CLI command (a leaf, so the command table and the demo do not import each other).
 * @module
 */

export interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}
