/**
 * Evidence units: each article's sentences cut into groups of up to {@link GROUP_SIZE}, lossless and
 * id-stable (`${titleSlug}#${firstSid}-${lastSid}`), rendered in the read_file line format (line − 1 = sentence
 * id).
 *
 * @module
 */
import type { Article, HotpotRecord } from "../../../data/hotpot_record.ts";
import { formatNumberedLine, lineNumberFromSentenceId } from "../read_file.ts";
import { uniqueSlugs } from "../workspace.ts";

/** Sentences per group (the last group of an article may be shorter). */
export const GROUP_SIZE = 3;

/** One evidence unit: consecutive sentences of one article. */
export interface EvidenceUnit {
  /** `${titleSlug}#${firstSid}-${lastSid}`. */
  id: string;
  title: string;
  /** Index of the article in the record's context. */
  article_index: number;
  /** 0-based sentence ids, consecutive. */
  sentence_ids: number[];
  sentences: string[];
}

/** Groups articles' sentences into evidence units, in source order. */
export function unitsFromArticles(articles: readonly Article[], groupSize = GROUP_SIZE): EvidenceUnit[] {
  const slugs = uniqueSlugs(articles.map((a) => a.title));
  const units: EvidenceUnit[] = [];
  articles.forEach((article, articleIndex) => {
    for (let start = 0; start < article.sentences.length; start += groupSize) {
      const sentences = article.sentences.slice(start, start + groupSize);
      const ids = sentences.map((_, i) => start + i);
      units.push({
        id: `${slugs[articleIndex]}#${ids[0]}-${ids[ids.length - 1]}`,
        title: article.title,
        article_index: articleIndex,
        sentence_ids: ids,
        sentences,
      });
    }
  });
  return units;
}

/** The evidence units of a record's context (only the articles are used: no answer, no labels). */
export function unitsFromRecord(record: HotpotRecord, groupSize = GROUP_SIZE): EvidenceUnit[] {
  return unitsFromArticles(record.context, groupSize);
}

/** A unit as text: a `## title` header, then its sentences as `N|text` lines (N = sentence id + 1). */
export function renderUnit(unit: EvidenceUnit): string {
  const lines = unit.sentences.map((s, i) =>
    formatNumberedLine(lineNumberFromSentenceId(unit.sentence_ids[i]), s)
  );
  return [`## ${unit.title}`, ...lines].join("\n");
}

/** Units in source order (article, then first sentence id), whatever order they are given in. */
export function sourceOrder(units: readonly EvidenceUnit[]): EvidenceUnit[] {
  return [...units].sort((a, b) =>
    a.article_index - b.article_index || a.sentence_ids[0] - b.sentence_ids[0]
  );
}
