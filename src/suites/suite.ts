/**
 * The one suite abstraction: its run header name, command, stages, metrics, how its runs are compared, merged
 * and re-derived, whether a frozen run can serve it, and what it prints at the end.
 * @module
 */
import type { CompareUnits } from "../report/compare_units.ts";
import type { MetricSpec } from "../analysis/metrics.ts";
import type { AnyStageDef } from "../pipeline/stage.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { RunDir } from "../store/run_dir.ts";
import type { AnsweringRule } from "./answering_check.ts";

/** Headline metrics per row key (method, context kind, engine) of one run, for `compare`. */
type CompareMetrics = Map<string, Record<string, number | null>>;

/** What `verify --rederive` needs of a suite's runs (`src/suites/stage_registry.ts` combines every suite's). */
export interface SuiteRederivation {
  /** What the suite's stage bodies need from the run beyond the tokenizer (fixtures, dataset readers). */
  environment?(manifest: Manifest, store: BlobStore): Promise<Record<string, unknown>>;
  /** Provider stages replayed from their call records with the run's environment and the recorded models. */
  compressionStages?: readonly AnyStageDef[];
  /** Answer stages replayed from their call records (the chat model and their context's validity). */
  answerStages?: readonly AnyStageDef[];
  /** Compression usage totals recorded in params that are not the sum of the nodes' usage they count. */
  usageProblems?(manifest: Manifest): { node: Node; message: string }[];
  /** Where its aggregates' recorded answering models come from (checked against the call records). */
  answering?: AnsweringRule;
}

/**
 * How a run merged from shards is completed: the stages recomputed on the merged run (a shard's aggregate and
 * reports), and `publish`, the suite replayed over the merged nodes before the run is sealed.
 */
export interface SuiteMerge {
  skipStages: ReadonlySet<string>;
  publish(run: RunDir): Promise<void>;
}

/** A suite. */
export interface Suite {
  /** The run header's `suite` (e.g. `hotpot`, `hotpot-collect`). */
  name: string;
  /** The command words (e.g. `["hotpot", "run"]`). */
  command: readonly string[];
  /** The title of progress lines. */
  title: string;
  /** Whether an unfinished run continues with `--resume DIR` (absent: it is started afresh). */
  resumable?: boolean;
  /** Every stage the suite runs, in pipeline order. */
  stages: readonly AnyStageDef[];
  /** The stages whose outputs are `results.json` and `aggregate.json`, and `REPORT.md` and `report.html`. */
  aggregate?: AnyStageDef;
  report?: AnyStageDef;
  /** Its metrics, declared once. */
  metrics?: readonly MetricSpec[];
  /** The headline metrics of a finished run, from its published `aggregate.json` / `results.json` texts. */
  compareMetrics?(files: { aggregate: unknown; results: unknown }): CompareMetrics;
  /** How `compare` pairs two runs unit by unit (absent: no per-unit rows). */
  // deno-lint-ignore no-explicit-any
  compareUnits?: CompareUnits<any>;
  /** Why `frozen` cannot serve a run of this suite with these protocol numbers (one line), or null. */
  checkFrozen?(frozen: Manifest, protocol: Record<string, unknown>): string | null;
  /** What re-deriving its runs needs (absent: the tokenizer only, and no provider stage is replayed). */
  rederive?: SuiteRederivation;
  /** How its shards merge and publish (absent: its runs cannot be merged). */
  merge?: SuiteMerge;
  /** The lines printed after a run, from its published `aggregate.json` text. */
  summary(aggregateText: string): string[];
}

/** The name a progress line gives a stage: without the suite's prefix (`hotpot-answer` → `answer`). */
export function stageDisplayName(suite: Suite, stage: string): string {
  const prefix = `${suite.command[0]}-`;
  return stage.startsWith(prefix) ? stage.slice(prefix.length) : stage;
}
