/**
 * What both hotpot reports state about the protocol: title, collection, per question the agent's system
 * prompt hash and "files unchanged", and the caveats.
 * @module
 */
import type { Cell } from "../../../core/markdown_table.ts";
import type { ReportCorpus } from "../question_card.ts";

/** The protocol's caveats, stated in every hotpot report. */
export const HOTPOT_CAVEATS: readonly string[] = [
  "Compression has its own provider usage (see Compression usage): a lower answer input is not a billing " +
  "claim.",
  "The questions are a filtered subset (seeded selection, evidence-length and article filters), not a " +
  "representative full-dataset score.",
  "HotpotQA is public: its questions and answers may be in a model's training data.",
  "This is evidence-grounded question answering after compaction, not evidence of agent-task success.",
];

/** The collection mode in words, e.g. `hermes (imported Hermes Agent sessions)`. */
export function collectionModeText(corpus: ReportCorpus): string {
  const p = corpus.protocol;
  switch (p.collection) {
    case "scripted":
      return "scripted (this program read every file with real read_file calls; not an agent)";
    case "live":
      return "live (an agent loop with the chat model)";
    case "hermes":
      return "hermes (imported Hermes Agent sessions)";
    case "agent":
      return `agent (outside agent \`${p.agent ?? "exec"}\`)`;
  }
}

/** The report title, naming the collection mode. */
export function hotpotReportTitle(
  corpus: ReportCorpus,
  inputCap: number,
  ceilings?: readonly number[],
): string {
  const limit = ceilings && ceilings.length > 1
    ? `answer-input ceilings ${ceilings.join(", ")}`
    : `a ${inputCap}-token answer-input ceiling`;
  return `hotpot (${corpus.protocol.collection} collection): compaction under ${limit}`;
}

/** One line on the workspace check, or null when every question was verified. */
export function filesUnchangedText(corpus: ReportCorpus): string | null {
  const n = corpus.questions.filter((q) => q.files_unchanged !== "verified").length;
  if (n === 0) return null;
  return `"files unchanged" not verifiable for ${n}/${corpus.questions.length} question(s) (no workspace ` +
    `hashes in the session); every tool result was still checked against the original file`;
}

/** Column names of the per-question collection table. */
export const COLLECTION_HEADERS = ["question", "type", "valid", "files unchanged", "system prompt sha256"];

/** Per question: id, type, validity, the workspace check and the initial system prompt's hash (16 hex). */
export function collectionRows(corpus: ReportCorpus): Cell[][] {
  return corpus.questions.map((q) => [
    q.id,
    q.type,
    q.valid ? "yes" : "no",
    q.files_unchanged ?? "not verifiable",
    q.system_prompt ? q.system_prompt.sha256.slice(0, 16) : "missing",
  ]);
}

/** The distinct initial system prompts with their hashes and how many questions carry each. */
export function distinctSystemPrompts(
  corpus: ReportCorpus,
): { sha256: string; text: string; questions: number }[] {
  const byHash = new Map<string, { sha256: string; text: string; questions: number }>();
  for (const q of corpus.questions) {
    if (!q.system_prompt) continue;
    const entry = byHash.get(q.system_prompt.sha256) ??
      { sha256: q.system_prompt.sha256, text: q.system_prompt.text, questions: 0 };
    entry.questions++;
    byHash.set(entry.sha256, entry);
  }
  return [...byHash.values()].sort((a, b) => a.sha256.localeCompare(b.sha256));
}
