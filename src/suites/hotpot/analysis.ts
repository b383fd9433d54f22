/**
 * The analysis parts of the hotpot report stage: intervals and paired differences from the published rows,
 * the explorer from the rows, the corpus and the context blobs, and the cost section given by the runner.
 *
 * @module
 */
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema } from "../../models/messages.ts";
import { hotpotExplorer } from "./explorer.ts";
import type { HotpotMethodAggregate } from "./aggregate.ts";
import type { Corpus } from "./corpus.ts";
import type { HotpotResultRow } from "./rows.ts";
import type { RunCost } from "../../analysis/cost.ts";
import { finiteOrNull } from "../../analysis/format.ts";
import { hotpotStats } from "./stats.ts";

const Messages = z.array(ChatMessageSchema);

/** Stats, explorer and cost for the report meta, and stats.json. */
export function hotpotAnalysis(
  aggregates: readonly HotpotMethodAggregate[],
  corpus: Corpus,
  inputs: Record<string, unknown>,
  resamples: number,
  cost: unknown,
): { meta: Record<string, unknown>; statsJson: string } {
  const rows = JSON.parse(z.string().parse(inputs.results)) as HotpotResultRow[];
  const contexts = new Map<string, ChatMessage[]>();
  for (const [name, value] of Object.entries(inputs)) {
    if (!name.startsWith("context:") || value === null) continue;
    const parsed = Messages.safeParse(value);
    if (parsed.success) contexts.set(name.slice("context:".length), parsed.data);
  }
  const stats = hotpotStats(rows, aggregates.map((a) => a.method), { resamples });
  return {
    meta: {
      stats,
      explorer: hotpotExplorer(corpus, rows, contexts),
      ...(cost ? { cost: cost as RunCost } : {}),
    },
    statsJson: `${JSON.stringify(finiteOrNull(stats), null, 2)}\n`,
  };
}
