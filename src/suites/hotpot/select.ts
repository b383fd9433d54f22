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
import type { HotpotRecord } from "../../data/hotpot_record.ts";

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

/** Selects the protocol's questions from `records` (see the module documentation for the exact rules). */
export function selectQuestions(
  records: readonly HotpotRecord[],
  options: SelectionOptions = DEFAULT_SELECTION,
): SelectionResult {
  const keyed = records.map((record) => ({ record, key: selectionKey(options.seed, record.id) }));
  keyed.sort((a, b) =>
    a.key < b.key
      ? -1
      : a.key > b.key
      ? 1
      : a.record.id < b.record.id
      ? -1
      : a.record.id > b.record.id
      ? 1
      : 0
  );
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
  const selected: HotpotRecord[] = [];
  let considered = 0;
  let skipped = 0;
  for (const { record } of keyed) {
    if (got.bridge >= wanted.bridge && got.comparison >= wanted.comparison) break;
    considered++;
    const problem = recordProblem(record, options);
    if (problem !== null) {
      removed[problem]++;
      continue;
    }
    if (record.context.some((a) => usedTitles.has(a.title))) {
      removed.shared_article++;
      continue;
    }
    if (got[record.type] >= wanted[record.type]) {
      skipped++;
      continue;
    }
    got[record.type]++;
    selected.push(record);
    for (const a of record.context) usedTitles.add(a.title);
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
