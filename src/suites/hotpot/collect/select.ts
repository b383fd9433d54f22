/**
 * The frozen question selection of the hotpot suite, made before any model call.
 *
 * Order: records sorted by ascending lowercase-hex SHA-256 of the UTF-8 bytes of `${seed}:${id}` (seed in
 * decimal, e.g. `20261016:5ae143ed55429920d5234360`); ties (impossible in practice) by id.
 *
 * Filters, applied in this order to each record in that order; a removed record is counted under the first
 * filter it fails:
 * 1. `not_ten_articles`: the context does not have exactly 10 articles;
 * 2. `duplicate_titles_within`: two of its articles share a title;
 * 3. `multiline_sentence`: a sentence contains a line break (the workspace keeps one sentence per line);
 * 4. `chars_out_of_range`: its evidence characters — the sum over all articles of the length of every
 *    sentence in Unicode code points, no separators added — are outside [minChars, maxChars];
 * 5. `unresolved_supporting_facts`: it has no supporting facts, or one names a title not in its context or a
 *    sentence id outside 0..sentences−1 of that article;
 * 6. `shared_article`: one of its titles is a title of an already selected question.
 * A record passing all filters is selected unless its type's quota is already met (then it is skipped,
 * not counted as removed). Selection stops as soon as both quotas are met.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { HotpotRecord } from "../../../data/hotpot_record.ts";

/** The protocol's selection parameters. */
export interface SelectionOptions {
  bridge: number;
  comparison: number;
  seed: number;
  minChars: number;
  maxChars: number;
}

/** The default protocol: 15 bridge + 15 comparison, seed 20261016, 6,000–32,000 evidence characters. */
export const DEFAULT_SELECTION: Readonly<SelectionOptions> = Object.freeze({
  bridge: 15,
  comparison: 15,
  seed: 20261016,
  minChars: 6000,
  maxChars: 32000,
});

/** How many records each filter removed. */
export interface RemovedCounts {
  not_ten_articles: number;
  duplicate_titles_within: number;
  multiline_sentence: number;
  chars_out_of_range: number;
  unresolved_supporting_facts: number;
  shared_article: number;
}

/** The outcome of a selection. */
export interface SelectionResult {
  /** Selected records in selection order. */
  selected: HotpotRecord[];
  removed: RemovedCounts;
  /** Records examined before both quotas were met (or all records). */
  considered: number;
  /** Passing records skipped because their type's quota was already met. */
  skipped_quota_full: number;
  /** True when both quotas were met. */
  quota_met: boolean;
  /** Selected / wanted per type. */
  counts: { bridge: { selected: number; wanted: number }; comparison: { selected: number; wanted: number } };
}

/** The sort key of a record: lowercase hex SHA-256 of `${seed}:${id}` (UTF-8). */
export function selectionKey(seed: number, id: string): string {
  return createHash("sha256").update(`${seed}:${id}`, "utf8").digest("hex");
}

/** Length of a string in Unicode code points (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Evidence characters of a record: the sum of its sentences' lengths in code points. */
export function evidenceChars(record: HotpotRecord): number {
  let n = 0;
  for (const article of record.context) for (const s of article.sentences) n += codePointLength(s);
  return n;
}

/** The first filter a record fails (ignoring `shared_article`), or null. */
export function recordProblem(
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
 * What selection needs of one record, so that a dataset can be selected from without holding its records
 * (a record's articles are not kept, only their titles, and only when they can matter).
 */
export interface SelectionCandidate {
  id: string;
  type: "bridge" | "comparison";
  /** The record's sort key ({@link selectionKey}). */
  key: string;
  /** The first filter it fails (ignoring `shared_article`), or null. */
  problem: Exclude<keyof RemovedCounts, "shared_article"> | null;
  /** Its article titles when it passes the other filters (else empty: they are never looked at). */
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

/** The outcome of a selection over candidates: the selected ids in selection order, and the counts. */
export type CandidateSelection = Omit<SelectionResult, "selected"> & { selected: string[] };

/**
 * Selects the protocol's questions from the candidates of a dataset's records, given in file order (see the
 * module documentation for the exact rules); returns the selected ids.
 */
export function selectFromCandidates(
  candidates: readonly SelectionCandidate[],
  options: SelectionOptions = DEFAULT_SELECTION,
): CandidateSelection {
  const result = selectCandidates(candidates, options);
  return { ...result, selected: result.selected.map((c) => c.id) };
}

/** {@link selectFromCandidates}, returning the selected candidates themselves. */
function selectCandidates(
  candidates: readonly SelectionCandidate[],
  options: SelectionOptions,
): Omit<SelectionResult, "selected"> & { selected: SelectionCandidate[] } {
  const keyed = [...candidates];
  keyed.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const removed: RemovedCounts = {
    not_ten_articles: 0,
    duplicate_titles_within: 0,
    multiline_sentence: 0,
    chars_out_of_range: 0,
    unresolved_supporting_facts: 0,
    shared_article: 0,
  };
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

/** Selects the protocol's questions from `records` (see the module documentation for the exact rules). */
export function selectQuestions(
  records: readonly HotpotRecord[],
  options: SelectionOptions = DEFAULT_SELECTION,
): SelectionResult {
  const candidates = records.map((record) => selectionCandidate(record, options));
  const recordOf = new Map(candidates.map((candidate, i) => [candidate, records[i]]));
  const result = selectCandidates(candidates, options);
  return { ...result, selected: result.selected.map((candidate) => recordOf.get(candidate)!) };
}
