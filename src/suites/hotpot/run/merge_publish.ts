/**
 * Completing a run merged from `hotpot run` shards: {@link runHotpot} replays the merged nodes (no model is
 * called) and publishes as a whole run does (answer_pipeline.ts answerMerge).
 *
 * @module
 */
import { UsageError } from "../../../errors.ts";
import { sha256Hex } from "../../../store/hash.ts";
import type { ModelSetup } from "../../model_setup.ts";
import { replayModels } from "../../merge_replay.ts";
import { answerMerge } from "../../answer_pipeline.ts";
import { CorpusSchema } from "../corpus.ts";
import { type HotpotRunOptions, runHotpot } from "./run_suite.ts";
import { hotpotAggregateStage, hotpotCeilingsStage } from "./stages/aggregate.ts";
import { hotpotReportStage } from "../report/stages/report.ts";
import { parseJsonBytes } from "../../../core/json_read.ts";

type HotpotProtocol = HotpotRunOptions & { models: ModelSetup["description"]; suite: string };

/** `hotpot run` shards. */
export const HOTPOT_MERGE = answerMerge(
  { aggregate: hotpotAggregateStage, ceilings: hotpotCeilingsStage, report: hotpotReportStage },
  async (run, context, counter, analysis) => {
    const bytes = await run.store.get(run.header.sources.corpus);
    const parsed = CorpusSchema.safeParse(parseJsonBytes(bytes));
    if (!parsed.success) throw new UsageError(`merge: the shards' corpus is not a valid corpus`);
    const { models: description, suite: _suite, ...runOptions } = run.header.protocol as HotpotProtocol;
    // The merged run holds every shard's questions: no shard.
    const outcome = await runHotpot(
      context,
      undefined,
      runOptions,
      replayModels(description),
      counter,
      analysis,
    );
    const protocol = {
      suite: "hotpot",
      ...runOptions,
      models: description,
      tokenizer: { name: counter.name, hash: counter.hash },
      corpus_sha256: sha256Hex(bytes),
      dataset_sha256: parsed.data.dataset.sha256,
    };
    return { files: outcome.files, protocol, write: { "corpus.json": bytes } };
  },
);
