/**
 * `hotpot-collect`: one question's trajectory by the collection mode (a provider stage: never re-executed).
 * @module
 */
import { z } from "zod";
import type { HotpotRecord } from "../../../../data/hotpot_record.ts";
import { UsageError } from "../../../../errors.ts";
import { defineStage } from "../../../../pipeline/stage.ts";
import { type CollectMode, collectQuestion } from "../collect_question.ts";

const loose = z.record(z.string(), z.unknown());

/** What a collect node's body needs besides its inputs: how to collect, the question and its workspace. */
export interface CollectEnv {
  mode: CollectMode;
  record: HotpotRecord;
  /** A fresh directory for the question's workspace. */
  workspace: string;
  /** A merge's replay: the node must come from the journal, so running the body is refused. */
  replay?: boolean;
}

/** `hotpot-collect`: scripted read_file calls, a live agent loop, an imported Hermes session or an outside agent. */
export const hotpotCollectStage = defineStage({
  name: "hotpot-collect",
  version: 4,
  doc:
    "One question's trajectory: scripted read_file calls over a real workspace, a live agent loop, an imported " +
    "Hermes session (its raw file, the run source session:<id>, is the input `session`), or an outside agent.",
  params: loose,
  inputs: ["dataset", "session"],
  // The dataset is an edge only (the question's record comes with the environment); the session file is read
  // as it was declared, byte for byte.
  hashOnlyInputs: ["dataset"],
  bytesInputs: ["session"],
  outputs: {
    collection: {
      schema: loose.nullable(),
      doc: "the collected messages and the agent's initial system prompt (text, sha256)",
    },
    check: {
      schema: loose,
      doc: "the collection checks' verdict and whether files unchanged was verifiable",
    },
    session_text: {
      // Absent unless an outside agent collected the question.
      schema: z.string().nullable().optional(),
      doc: "an outside agent's raw stdout (agent mode only)",
    },
  },
  provider: true,
  async run({ inputs, env }: { inputs: Record<string, unknown>; env: CollectEnv }) {
    if (env.replay) {
      throw new UsageError(
        `merge: no shard holds the collection of question ${env.record.id}; the shards are incomplete`,
      );
    }
    const session = inputs.session instanceof Uint8Array ? inputs.session : null;
    return await collectQuestion(env.mode, env.record, env.workspace, session);
  },
});
