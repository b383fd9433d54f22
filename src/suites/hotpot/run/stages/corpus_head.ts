/**
 * `hotpot-corpus-head`: the corpus without its questions and gold labels, with the questions' order; what the
 * report states about the dataset, the selection and the collection.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import { corpusHead, CorpusHeadSchema } from "../../question_card.ts";
import { corpusOf } from "./question.ts";

/** The `hotpot-corpus-head` stage. */
export const hotpotCorpusHeadStage = defineStage({
  name: "hotpot-corpus-head",
  version: 1,
  doc: "The corpus's dataset, selection and collection facts and its questions' order (read by the report).",
  params: z.object({}),
  inputs: ["corpus"],
  bytesInputs: ["corpus"],
  outputs: {
    // Not handed back: the report reads it by hash.
    head: {
      schema: CorpusHeadSchema,
      held: false,
      doc: "the corpus without questions and gold labels, with question_ids",
    },
  },
  provider: false,
  run({ inputs, hashes }) {
    const corpus = corpusOf(hashes.corpus, inputs.corpus as Uint8Array);
    return Promise.resolve({ outputs: { head: corpusHead(corpus.head, corpus.ids) } });
  },
});
