/**
 * The frozen hotpot question selection. Records in order of the hex SHA-256 of `${seed}:${id}` (ties by id);
 * each is counted under the first filter it fails: not 10 articles, a title twice, a multi-line sentence,
 * evidence code points outside [minChars, maxChars], a supporting fact that does not resolve, an article
 * shared with a selected question. A passing record is selected unless its type's quota is met (skipped);
 * selection stops when both quotas are met.
 * @module
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";

/** The protocol's selection parameters (the `hotpot-select` stage's params). */
export const SelectionOptionsSchema = z.object({
  bridge: z.number().int(),
  comparison: z.number().int(),
  seed: z.number().int(),
  minChars: z.number().int(),
  maxChars: z.number().int(),
});
export type SelectionOptions = z.infer<typeof SelectionOptionsSchema>;

/** The default protocol: 15 bridge + 15 comparison, seed 20261016, 6,000–32,000 evidence characters. */
export const DEFAULT_SELECTION: Readonly<SelectionOptions> = Object.freeze({
  bridge: 15,
  comparison: 15,
  seed: 20261016,
  minChars: 6000,
  maxChars: 32000,
});

const FILTERS = [
  "not_ten_articles",
  "duplicate_titles_within",
  "multiline_sentence",
  "chars_out_of_range",
  "unresolved_supporting_facts",
  "shared_article",
] as const;

type RemovedCounts = Record<(typeof FILTERS)[number], number>;

/** What a selection records: how many records were considered and what each filter removed. */
export const SelectionReportSchema = z.object({
  considered: z.number().int(),
  removed: z.record(z.string(), z.number().int()),
  skipped_quota_full: z.number().int(),
  quota_met: z.boolean(),
  counts: z.record(z.string(), z.object({ selected: z.number().int(), wanted: z.number().int() })),
});
export type SelectionReport = z.infer<typeof SelectionReportSchema>;

/** A selection: records in selection order; examined ones (until both quotas were met); skipped for quota. */
type SelectionResult = SelectionReport & { selected: HotpotRecord[] };

/** The sort key of a record: lowercase hex SHA-256 of `${seed}:${id}` (UTF-8). */
export function selectionKey(seed: number, id: string): string {
  return createHash("sha256").update(`${seed}:${id}`, "utf8").digest("hex");
}

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Length of a string in Unicode code points (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  return text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
}

/** Evidence characters of a record: the sum of its sentences' lengths in code points. */
export function evidenceChars(record: HotpotRecord): number {
  let n = 0;
  for (const article of record.context) for (const s of article.sentences) n += codePointLength(s);
  return n;
}

/** The first filter a record fails (ignoring `shared_article`), or null. */
function recordProblem(
  record: HotpotRecord,
  options: Pick<SelectionOptions, "minChars" | "maxChars">,
): Exclude<keyof RemovedCounts, "shared_article"> | null {
  if (record.context.length !== 10) return "not_ten_articles";
  const titles = new Set(record.context.map((a) => a.title));
  if (titles.size !== record.context.length) return "duplicate_titles_within";
  if (record.context.some((a) => a.sentences.some((s) => /[\r\n]/.test(s)))) return "multiline_sentence";
  const chars = evidenceChars(record);
  if (chars < options.minChars || chars > options.maxChars) return "chars_out_of_range";
  if (record.supporting_facts.length === 0) return "unresolved_supporting_facts";
  for (const fact of record.supporting_facts) {
    const article = record.context.find((a) => a.title === fact.title);
    if (article === undefined || fact.sent_id < 0 || fact.sent_id >= article.sentences.length) {
      return "unresolved_supporting_facts";
    }
  }
  return null;
}

/**
 * What selection needs of one record, so a dataset is selected from without holding its records: its sort
 * key, the first filter it fails, and its titles only when it passes the others.
 */
export interface SelectionCandidate {
  id: string;
  type: "bridge" | "comparison";
  key: string;
  problem: Exclude<keyof RemovedCounts, "shared_article"> | null;
  titles: string[];
}

/** The selection candidate of one record under `options`. */
export function selectionCandidate(
  record: HotpotRecord,
  options: Pick<SelectionOptions, "seed" | "minChars" | "maxChars">,
): SelectionCandidate {
  const problem = recordProblem(record, options);
  return {
    id: record.id,
    type: record.type,
    key: selectionKey(options.seed, record.id),
    problem,
    titles: problem === null ? record.context.map((a) => a.title) : [],
  };
}

/** Selects the protocol's questions (candidates, in selection order) from a dataset's candidates, in file order. */
export function selectCandidates(
  candidates: readonly SelectionCandidate[],
  options: SelectionOptions,
): Omit<SelectionResult, "selected"> & { selected: SelectionCandidate[] } {
  const keyed = [...candidates];
  keyed.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const removed = Object.fromEntries(FILTERS.map((f) => [f, 0])) as RemovedCounts;
  const wanted = { bridge: options.bridge, comparison: options.comparison };
  const got = { bridge: 0, comparison: 0 };
  const usedTitles = new Set<string>();
  const selected: SelectionCandidate[] = [];
  let considered = 0;
  let skipped = 0;
  for (const candidate of keyed) {
    if (got.bridge >= wanted.bridge && got.comparison >= wanted.comparison) break;
    considered++;
    if (candidate.problem !== null) {
      removed[candidate.problem]++;
      continue;
    }
    if (candidate.titles.some((title) => usedTitles.has(title))) {
      removed.shared_article++;
      continue;
    }
    if (got[candidate.type] >= wanted[candidate.type]) {
      skipped++;
      continue;
    }
    got[candidate.type]++;
    selected.push(candidate);
    for (const title of candidate.titles) usedTitles.add(title);
  }
  return {
    selected,
    removed,
    considered,
    skipped_quota_full: skipped,
    quota_met: got.bridge >= wanted.bridge && got.comparison >= wanted.comparison,
    counts: {
      bridge: { selected: got.bridge, wanted: wanted.bridge },
      comparison: { selected: got.comparison, wanted: wanted.comparison },
    },
  };
}

/** Selects the protocol's questions from `records`. */
export function selectQuestions(
  records: readonly HotpotRecord[],
  options: SelectionOptions = DEFAULT_SELECTION,
): SelectionResult {
  const candidates = records.map((record) => selectionCandidate(record, options));
  const recordOf = new Map(candidates.map((candidate, i) => [candidate, records[i]]));
  const result = selectCandidates(candidates, options);
  return { ...result, selected: result.selected.map((candidate) => recordOf.get(candidate)!) };
}
