/**
 * `hotpot-collect`: one question's trajectory — scripted `read_file` calls over a real workspace, a live agent
 * loop, or an imported Hermes session — and the collection checks' verdict. It reads the file system (and, live,
 * a provider), so `verify --rederive` does not re-execute it.
 *
 * @module
 */
import { join } from "node:path";
import { z } from "zod";
import { UsageError } from "../../../errors.ts";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { ChatMessageSchema } from "../../../models/messages.ts";
import type { ChatModel } from "../../../models/types.ts";
import { defineStage } from "../../../pipeline/stage.ts";
import { collectLive } from "../collect_live.ts";
import { collectScripted } from "../collect_scripted.ts";
import { importHermesSession } from "../collect_hermes.ts";
import { checkCollection } from "../collection_checks.ts";
import { SYSTEM_PROMPT } from "../trajectory.ts";

/** How trajectories are collected. */
export type CollectMode =
  | { kind: "scripted" }
  | { kind: "live"; chat: ChatModel; model: string }
  | { kind: "hermes"; dir: string };

/** What a collection body needs: the record, a fresh workspace directory and the mode. */
export interface CollectEnv {
  record: HotpotRecord;
  workspace: string;
  mode: CollectMode;
}

const CollectParams = z.object({
  id: z.string(),
  mode: z.enum(["scripted", "live", "hermes"]),
  model: z.string().optional(),
});

/** The `hotpot-collect` stage. */
export const hotpotCollectStage = defineStage({
  name: "hotpot-collect",
  version: 1,
  doc:
    "One question's trajectory: scripted read_file calls over a real workspace, a live agent loop, or an imported Hermes session.",
  params: CollectParams,
  inputs: ["dataset"],
  textInputs: ["dataset"],
  outputs: {
    collection: {
      schema: z.object({ messages: z.array(ChatMessageSchema) }).loose().nullable(),
      doc: "the collected messages (and what the collection recorded beside them)",
    },
    check: {
      schema: z.object({ valid: z.boolean(), reason: z.string().optional() }).loose(),
      doc: "the collection checks' verdict",
    },
  },
  provider: true,
  async run({ params, env }: { params: z.infer<typeof CollectParams>; env: CollectEnv }) {
    const { record, workspace, mode } = env;
    let collection;
    if (mode.kind === "scripted") collection = await collectScripted(record, workspace);
    else if (mode.kind === "live") collection = await collectLive(record, workspace, mode.chat);
    else {
      const file = join(mode.dir, `${params.id}.json`);
      let json: unknown;
      try {
        json = JSON.parse(await Deno.readTextFile(file));
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) {
          const reason = `no session file ${params.id}.json in the sessions directory`;
          return {
            outputs: { collection: null, check: { valid: false, reason } },
            status: "invalid" as const,
            reason,
          };
        }
        if (error instanceof SyntaxError) throw new UsageError(`${file}: not JSON (${error.message})`);
        throw error;
      }
      collection = importHermesSession(json, record, file);
    }
    const check = checkCollection(collection, record, { systemPrompt: SYSTEM_PROMPT });
    const { calls, ...stored } = collection;
    return {
      outputs: { collection: stored, check },
      requests: calls ?? [],
      status: check.valid ? "ok" as const : "invalid" as const,
      ...(check.valid ? {} : { reason: check.reason }),
    };
  },
});
