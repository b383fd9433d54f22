/**
 * `hotpot-select`: the selection, frozen before any model call, from the environment's candidates of the
 * `dataset` source (its input is a DAG edge only).
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";
import type { HotpotRecord } from "../../../../data/hotpot_record.ts";
import {
  type CandidateSelection,
  selectFromCandidates,
  type SelectionCandidate,
  selectionCandidate,
  type SelectionOptions,
} from "../select.ts";

/** What the selection stage records: how many records were considered and what each filter removed. */
export const SelectionReportSchema = z.object({
  considered: z.number().int(),
  removed: z.record(z.string(), z.number().int()),
  skipped_quota_full: z.number().int(),
  quota_met: z.boolean(),
  counts: z.record(z.string(), z.object({ selected: z.number().int(), wanted: z.number().int() })),
});
/** What the selection stage records: how many records were considered and what each filter removed. */
export type SelectionReport = z.infer<typeof SelectionReportSchema>;

/** The selected ids and the selection report of `records` (deterministic; what the stage records). */
export function selectionReport(
  records: readonly HotpotRecord[],
  selection: SelectionOptions,
): { ids: string[]; report: SelectionReport } {
  return selectionReportOf(records.map((r) => selectionCandidate(r, selection)), selection);
}

/** The selected ids and the selection report of a dataset's selection candidates, in file order. */
export function selectionReportOf(
  candidates: readonly SelectionCandidate[],
  selection: SelectionOptions,
): { ids: string[]; report: SelectionReport } {
  const result: CandidateSelection = selectFromCandidates(candidates, selection);
  return {
    ids: result.selected,
    report: {
      considered: result.considered,
      removed: { ...result.removed },
      skipped_quota_full: result.skipped_quota_full,
      quota_met: result.quota_met,
      counts: result.counts,
    },
  };
}

/** What the selection stage needs: the selection candidates of the dataset's records (its `dataset` source). */
export interface HotpotSelectEnv {
  candidates(options: SelectionOptions): Promise<SelectionCandidate[]>;
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
  hashOnlyInputs: ["dataset"],
  outputs: {
    selected: { schema: z.object({ ids: z.array(z.string()) }), doc: "the selected question ids" },
    report: { schema: SelectionReportSchema, doc: "records considered, removed by each filter, quotas" },
  },
  provider: false,
  async run({ params, env }: { params: z.infer<typeof SelectParams>; env: HotpotSelectEnv }) {
    const { ids, report } = selectionReportOf(await env.candidates(params), params);
    return { outputs: { selected: { ids }, report } };
  },
});
