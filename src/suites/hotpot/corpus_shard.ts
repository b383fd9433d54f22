/**
 * The part of a corpus a hotpot shard runs: its questions by id hash (see src/pipeline/shard.ts). The corpus
 * source of the run stays the whole corpus, so every node key equals the unsharded run's.
 *
 * @module
 */
import { questionInShard, type Shard } from "../../pipeline/shard.ts";
import type { Corpus } from "./corpus.ts";

/** The corpus restricted to the questions of `shard` (the corpus itself without a shard). */
export function shardOfCorpus(corpus: Corpus, shard: Shard | undefined): Corpus {
  if (shard === undefined) return corpus;
  return { ...corpus, questions: corpus.questions.filter((q) => questionInShard(q.id, shard)) };
}
