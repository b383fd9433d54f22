/**
 * A HotpotQA dataset file read in bounded memory, in batches: one pass keeps each record's
 * {@link SelectionCandidate}, a second only the selected records. A pass asks for a full GC when the heap
 * grew by {@link PASS_HEAP_BYTES} (decoding makes far more garbage than a pass keeps).
 * @module
 */
import { HeapBudget } from "../../../core/heap_budget.ts";
import { hotpotRecordBatches } from "../../../data/hotpot_load.ts";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";
import { type SelectionCandidate, selectionCandidate, type SelectionOptions } from "./select.ts";

/** Growth of the heap in use over a pass (bytes) above which a full collection is asked for after a batch. */
export const PASS_HEAP_BYTES = 96 * 1024 * 1024;

/** The batches of `dataset`, with a full collection after a batch when the pass's heap grew too much. */
async function* collectedBatches(batches: AsyncIterable<HotpotRecord[]>): AsyncGenerator<HotpotRecord[]> {
  const budget = new HeapBudget(Deno.memoryUsage().heapUsed + PASS_HEAP_BYTES, 0);
  let batch: HotpotRecord[] | undefined;
  for await (batch of batches) {
    yield batch;
    batch = undefined; // the consumer is done with it: not kept alive by this frame through the collection
    budget.check();
  }
  // A pass leaves no garbage behind for what comes next (e.g. building the tokenizer) to pile on.
  new HeapBudget(0, 0).check();
}

/** A dataset read in batches, with its selection candidates. */
export interface HotpotDataset {
  /** The records in file order, in batches (the file is read anew on each call). */
  batches(): AsyncIterable<HotpotRecord[]>;
  /** The selection candidates of every record, in file order (one pass, remembered per selection options). */
  candidates(options: SelectionOptions): Promise<SelectionCandidate[]>;
  /** The records whose id is in `ids` and the dataset's record count; the last result answers its subsets. */
  records(ids: ReadonlySet<string>): Promise<DatasetRecords>;
}

/** Some records of a dataset by id, and how many records it holds. */
export interface DatasetRecords {
  byId: Map<string, HotpotRecord>;
  total: number;
}

/** The HotpotQA file at `path` (`.parquet` or official `.json`); errors: `loadHotpot`'s, naming `option`. */
export function hotpotDatasetFile(path: string, option?: string): HotpotDataset {
  const candidatesByOptions = new Map<string, Promise<SelectionCandidate[]>>();
  const batches = () => hotpotRecordBatches(path, option);
  let kept: DatasetRecords | undefined;
  return {
    batches,
    async records(ids) {
      const have = kept;
      if (have !== undefined && [...ids].every((id) => have.byId.has(id))) {
        return { byId: new Map([...ids].map((id) => [id, have.byId.get(id)!])), total: have.total };
      }
      // One pass keeping the records whose id is in `ids` (a repeated id: its last record), counting all.
      const byId = new Map<string, HotpotRecord>();
      let total = 0;
      for await (const batch of collectedBatches(batches())) {
        total += batch.length;
        for (const record of batch) if (ids.has(record.id)) byId.set(record.id, record);
      }
      return kept = { byId, total };
    },
    candidates({ seed, minChars, maxChars }) {
      const memo = JSON.stringify([seed, minChars, maxChars]);
      let found = candidatesByOptions.get(memo);
      if (found === undefined) {
        // Each batch becomes its candidates as it is read: the records are never held all at once.
        const of = (batch: HotpotRecord[]) =>
          batch.map((r) => selectionCandidate(r, { seed, minChars, maxChars }));
        found = Array.fromAsync(collectedBatches(batches()), of).then((lists) => lists.flat());
        candidatesByOptions.set(memo, found);
      }
      return found;
    },
  };
}
