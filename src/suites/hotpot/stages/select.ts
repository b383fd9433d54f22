/**
 * `hotpot-select`: the question selection, frozen before any model call (ascending SHA-256 of `seed:id`, the
 * filters and their counts), from the run's `dataset` source.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../pipeline/stage.ts";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { type SelectionOptions, selectQuestions } from "../select.ts";

/** What the selection stage records: how many records were considered and what each filter removed. */
export interface SelectionReport {
  considered: number;
  removed: Record<string, number>;
  skipped_quota_full: number;
  quota_met: boolean;
  counts: Record<string, { selected: number; wanted: number }>;
}

/** The selected ids and the selection report (deterministic; the `hotpot-select` stage records it). */
export function selectionReport(
  records: HotpotRecord[],
  selection: SelectionOptions,
): { ids: string[]; report: SelectionReport } {
  const result = selectQuestions(records, selection);
  return {
    ids: result.selected.map((r) => r.id),
    report: {
      considered: result.considered,
      removed: { ...result.removed },
      skipped_quota_full: result.skipped_quota_full,
      quota_met: result.quota_met,
      counts: result.counts,
    },
  };
}

/** What the selection stage needs: the dataset's records (parsed from the `dataset` source). */
export interface HotpotSelectEnv {
  records(): Promise<HotpotRecord[]>;
}

const SelectParams = z.object({
  bridge: z.number().int(),
  comparison: z.number().int(),
  seed: z.number().int(),
  minChars: z.number().int(),
  maxChars: z.number().int(),
});

/** The `hotpot-select` stage. */
export const hotpotSelectStage = defineStage({
  name: "hotpot-select",
  version: 1,
  doc: "The frozen question selection: ascending SHA-256 of seed:id within per-type quotas and filters.",
  params: SelectParams,
  inputs: ["dataset"],
  textInputs: ["dataset"],
  outputs: {
    selected: { schema: z.object({ ids: z.array(z.string()) }), doc: "the selected question ids" },
    report: { schema: z.record(z.string(), z.unknown()), doc: "records considered, removed by each filter" },
  },
  provider: false,
  async run({ params, env }: { params: z.infer<typeof SelectParams>; env: HotpotSelectEnv }) {
    const { ids, report } = selectionReport(await env.records(), params);
    return { outputs: { selected: { ids }, report } };
  },
});
