/**
 * The hotpot report stage's analysis parts: intervals and paired differences, the explorer, the cost section.
 * @module
 */
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema } from "../../../models/messages.ts";
import { isPlainChatRequest } from "../../../models/plain_requests.ts";
import { hotpotExplorerPacked } from "./explorer.ts";
import type { HotpotMethodAggregate } from "../run/aggregate.ts";
import type { ReportCorpus } from "../question_card.ts";
import type { HotpotRowFigures } from "../run/rows.ts";
import type { RunCost } from "../../../analysis/cost.ts";
import { finiteOrNull } from "../../../analysis/format.ts";
import { hotpotStats } from "./stats.ts";
import { invalidReasons } from "./invalid_reasons.ts";

const Messages = z.array(ChatMessageSchema);

/** Stats, explorer and cost for the report meta, and stats.json. */
export async function hotpotAnalysis(
  aggregates: readonly HotpotMethodAggregate[],
  corpus: ReportCorpus,
  rows: readonly HotpotRowFigures[],
  loadContext: (hash: string) => Promise<unknown>,
  resamples: number,
  cost: unknown,
): Promise<{ meta: Record<string, unknown>; statsJson: string }> {
  const contexts = async (hash: string) => {
    const value = await loadContext(hash);
    // Plain messages (what the context stage writes) are taken as read: the check says yes only where the
    // schema accepts, and the explorer reads only the fields it checked, sparing a schema walk.
    if (isPlainChatRequest({ messages: value })) return value as ChatMessage[];
    const parsed = Messages.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  };
  const stats = hotpotStats(rows, aggregates.map((a) => a.method), { resamples });
  return {
    meta: {
      stats,
      invalidReasons: invalidReasons(rows),
      explorer: await hotpotExplorerPacked(corpus, rows, contexts),
      ...(cost ? { cost: cost as RunCost } : {}),
    },
    statsJson: `${JSON.stringify(finiteOrNull(stats), null, 2)}\n`,
  };
}
