/**
 * Every stage declaration of every suite, by name, and the environment their bodies need when re-executed
 * from a finished run (`verify --rederive`): the tokenizer the run recorded, the sweep fixture of its
 * `trajectory` source, the HotpotQA records of its `dataset` source.
 *
 * @module
 */
import { join } from "node:path";
import type { StageRegistry } from "../pipeline/rederive.ts";
import type { AnyStageDef } from "../pipeline/stage.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { Manifest } from "../store/manifest.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { loadHotpot } from "../data/hotpot_load.ts";
import type { HotpotRecord } from "../data/hotpot_record.ts";
import { PROVIDER_STAGES } from "./provider_stages.ts";
import { hotpotSelectStage } from "./hotpot/stages/select.ts";
import { hotpotQuestionStage } from "./hotpot/stages/question.ts";
import { hotpotContextStage } from "./hotpot/stages/context.ts";
import { hotpotScoreStage } from "./hotpot/stages/score.ts";
import { hotpotAggregateStage } from "./hotpot/stages/aggregate.ts";
import { hotpotReportStage } from "./hotpot/stages/report.ts";
import { sweepTrajectoryStage } from "./sweep/stages/trajectory.ts";
import { sweepContextStage } from "./sweep/stages/context.ts";
import { sweepScoreStage } from "./sweep/stages/score.ts";
import { sweepAggregateStage } from "./sweep/stages/aggregate.ts";
import { sweepReportStage } from "./sweep/stages/report.ts";
import { sweepFixtureFromBytes } from "./sweep/fixture.ts";
import { enginesTranscriptStage } from "./engines/stages/transcript.ts";
import { enginesAggregateStage } from "./engines/stages/aggregate.ts";
import { enginesReportStage } from "./engines/stages/report.ts";

/** Every stage declaration, in pipeline order per suite. */
export const STAGES: readonly AnyStageDef[] = [
  hotpotSelectStage,
  ...PROVIDER_STAGES.filter((s) => s.name.startsWith("hotpot-collect")),
  hotpotQuestionStage,
  ...PROVIDER_STAGES.filter((s) => ["hotpot-rank", "hotpot-summary"].includes(s.name)),
  hotpotContextStage,
  ...PROVIDER_STAGES.filter((s) => s.name === "hotpot-answer"),
  hotpotScoreStage,
  hotpotAggregateStage,
  hotpotReportStage,
  sweepTrajectoryStage,
  ...PROVIDER_STAGES.filter((s) => ["sweep-summary", "sweep-rank"].includes(s.name)),
  sweepContextStage,
  ...PROVIDER_STAGES.filter((s) => s.name === "sweep-answer"),
  sweepScoreStage,
  sweepAggregateStage,
  sweepReportStage,
  enginesTranscriptStage,
  ...PROVIDER_STAGES.filter((s) => s.name === "engines-engine"),
  enginesAggregateStage,
  enginesReportStage,
] as AnyStageDef[];

const byName = new Map(STAGES.map((s) => [s.name, s]));

/** Reads the HotpotQA records of a dataset blob (Parquet by its magic bytes, else official JSON). */
async function recordsOf(store: BlobStore, hash: string): Promise<HotpotRecord[]> {
  const bytes = await store.get(hash);
  const parquet = new TextDecoder().decode(bytes.subarray(0, 4)) === "PAR1";
  const dir = await Deno.makeTempDir({ prefix: "compaction-bench-rederive-" });
  try {
    const path = join(dir, parquet ? "dataset.parquet" : "dataset.json");
    await Deno.writeFile(path, bytes);
    return await loadHotpot(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The registry `verify --rederive` uses. */
export const STAGE_REGISTRY: StageRegistry = {
  stage: (name) => byName.get(name),
  async environment(manifest: Manifest, store: BlobStore) {
    const counter = manifest.tokenizer ? await loadTokenCounter() : undefined;
    const trajectory = manifest.sources["trajectory"];
    const fixture = manifest.suite === "sweep" && trajectory
      ? await sweepFixtureFromBytes(await store.get(trajectory), "the run's trajectory source")
      : undefined;
    let records: Promise<HotpotRecord[]> | undefined;
    const dataset = manifest.sources["dataset"];
    return {
      counter,
      fixture,
      records: () => {
        if (!dataset) return Promise.reject(new Error("the run declares no dataset source"));
        return records ??= recordsOf(store, dataset);
      },
    };
  },
};
