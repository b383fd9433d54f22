/**
 * A HotpotQA dataset file as selection and collection read it, in bounded memory: the file is read in batches
 * (a Parquet file's row groups in slices) and only what is needed is kept. A first pass keeps each record's
 * {@link SelectionCandidate} (id, type, sort key, first failed filter, titles), from which the selection is
 * made exactly as from the records; a second pass keeps only the selected records. The records are never all
 * held at once (an official JSON file, one array, is read whole by its nature).
 *
 * Decoding a batch makes far more garbage than a pass keeps, and V8 would let it pile up over the batches; so a
 * pass asks for a full collection after a batch when the heap in use has grown by more than
 * {@link PASS_HEAP_BYTES} since the pass began, and once when it ends.
 *
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
  /**
   * The records whose id is in `ids`, by id, and the number of records in the dataset: one pass keeping only
   * those (see {@link recordsWithIds}); the last such result is remembered and answers any subset of its ids.
   */
  records(ids: ReadonlySet<string>): Promise<DatasetRecords>;
}

/** Some records of a dataset by id, and how many records it holds. */
export interface DatasetRecords {
  byId: Map<string, HotpotRecord>;
  total: number;
}

/**
 * The HotpotQA file at `path` (`.parquet`: Hugging Face layout, `.json`: official layout) as a
 * {@link HotpotDataset}; errors (unreadable file, bad record) are those of `loadHotpot`, naming `option`.
 */
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
      kept = await recordsWithIds({ batches }, ids);
      return kept;
    },
    candidates(options) {
      const { seed, minChars, maxChars } = options;
      const memo = JSON.stringify([seed, minChars, maxChars]);
      let found = candidatesByOptions.get(memo);
      if (found === undefined) {
        found = candidatesOf(batches(), { seed, minChars, maxChars });
        candidatesByOptions.set(memo, found);
      }
      return found;
    },
  };
}

/** The selection candidates of every record of `batches`, in order. */
export async function candidatesOf(
  batches: AsyncIterable<HotpotRecord[]>,
  options: Pick<SelectionOptions, "seed" | "minChars" | "maxChars">,
): Promise<SelectionCandidate[]> {
  const candidates: SelectionCandidate[] = [];
  for await (const batch of collectedBatches(batches)) {
    for (const record of batch) candidates.push(selectionCandidate(record, options));
  }
  return candidates;
}

/**
 * One pass over the dataset keeping only the records whose id is in `ids` (when an id repeats, the last
 * record with it, as a map of all records by id would hold), and counting every record.
 */
export async function recordsWithIds(
  dataset: Pick<HotpotDataset, "batches">,
  ids: ReadonlySet<string>,
): Promise<DatasetRecords> {
  const byId = new Map<string, HotpotRecord>();
  let total = 0;
  for await (const batch of collectedBatches(dataset.batches())) {
    total += batch.length;
    for (const record of batch) if (ids.has(record.id)) byId.set(record.id, record);
  }
  return { byId, total };
}
