/**
 * The `hotpot collect` suite (apart from `definition.ts`: a run never loads the collection side).
 * @module
 */
import type { Suite } from "../suite.ts";
import { HOTPOT_COLLECT_MERGE } from "./collect/collect_merge.ts";
import { HOTPOT_COLLECT_REDERIVATION } from "./rederivation.ts";
import { hotpotCollectStage } from "./collect/stages/collect.ts";
import { hotpotSelectStage } from "./collect/stages/select.ts";
import { hotpotCorpusStage } from "./collect/stages/corpus.ts";

/** `hotpot collect`. */
export const HOTPOT_COLLECT_SUITE: Suite = {
  name: "hotpot-collect",
  command: ["hotpot", "collect"],
  title: "hotpot-collect",
  resumable: true,
  stages: [hotpotSelectStage, hotpotCollectStage, hotpotCorpusStage],
  rederive: HOTPOT_COLLECT_REDERIVATION,
  merge: HOTPOT_COLLECT_MERGE,
  summary: () => [],
};
