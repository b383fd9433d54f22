/**
 * The suite registry: every suite by its run header name, and every stage declaration of every suite.
 * @module
 */
import type { AnyStageDef } from "../pipeline/stage.ts";
import type { Suite } from "./suite.ts";
import { HOTPOT_SUITE } from "./hotpot/definition.ts";
import { HOTPOT_COLLECT_SUITE } from "./hotpot/collect_definition.ts";
import { SWEEP_SUITE } from "./sweep/definition.ts";
import { ENGINES_SUITE } from "./engines/definition.ts";
import { publishedJsonStage } from "./published.ts";
import { runHeaderStage } from "../pipeline/run_header.ts";

/** Every suite. */
export const SUITES: readonly Suite[] = [HOTPOT_COLLECT_SUITE, HOTPOT_SUITE, SWEEP_SUITE, ENGINES_SUITE];

/** The suite whose runs have `name` in their header, if any. */
export function suiteNamed(name: string): Suite | undefined {
  return SUITES.find((s) => s.name === name);
}

/** Every stage declaration of every suite, each once, in suite and pipeline order, then the shared ones. */
export const STAGES: readonly AnyStageDef[] = [
  ...new Map(SUITES.flatMap((s) => s.stages).map((d) => [d.name, d])).values(),
  publishedJsonStage,
  runHeaderStage,
];
