/**
 * The engines report's explorer data: per needle and probe of the stored transcript, whether each engine kept
 * the fact verbatim and what the model answered from its window (and with recall tools), with filters by
 * kind, position, lost and wrong.
 * @module
 */
import type { ExplorerData, ExplorerItem } from "../../report/explorer.ts";
import { engineLabel } from "./report.ts";
import { type EngineResult, probeId } from "./run.ts";
import { NeedleSchema, ProbeSchema } from "../../data/transcripts/types.ts";

/** The explorer of an engines run; rows name their budget when the run measured several. */
export function enginesExplorerOf(
  transcript: { needles: readonly unknown[]; probes: readonly unknown[] },
  results: readonly EngineResult[],
  severalBudgets: boolean,
): ExplorerData {
  const needles: ExplorerNeedle[] = transcript.needles.map((raw) => {
    const { id, fact, question, answer, position } = NeedleSchema.parse(raw);
    return { id, kind: "needle", fact, question, answer, position };
  });
  const probes: ExplorerNeedle[] = transcript.probes.map((raw, i) => {
    const p = ProbeSchema.parse(raw);
    const facts = p.facts ?? [p.answer];
    return {
      id: probeId(p, i),
      kind: "probe",
      question: p.question,
      answer: facts.join("; "),
      ...(p.category !== undefined ? { type: p.category } : {}),
    };
  });
  return enginesExplorer(
    [...needles, ...probes],
    results.map((r) => ({ ...r, engine: engineLabel(r), budget: severalBudgets ? r.budget : undefined })),
  );
}

type Answers = { answers: { id: string; reply: string | null; correct: boolean; error?: string }[] } | null;

/** The fields of an engine result the explorer reads. */
export interface ExplorerEngineResult {
  engine: string;
  budget?: string;
  status: string;
  reason: string | null;
  needles: { found_ids: string[] };
  qa: Answers;
  probes?: Answers;
  recovery?: { qa: Answers; probes: Answers } | null;
}

/** A planted needle or an imported probe. */
export interface ExplorerNeedle {
  id: string;
  kind: "needle" | "probe";
  fact?: string;
  question: string;
  answer: string;
  position?: string;
  /** A probe's type (e.g. `decision`, `file`). */
  type?: string;
}

/** The `lost` and `answer` tags of an item: some engine lost it (got it wrong), or none did. */
const LOST_TAGS = ["lost by some engine", "kept by every engine"] as const;
const WRONG_TAGS = ["wrong by some engine", "right by every engine"] as const;

/** Builds the explorer data of an engines run. */
export function enginesExplorer(
  needles: readonly ExplorerNeedle[],
  results: readonly ExplorerEngineResult[],
): ExplorerData {
  const name = (r: ExplorerEngineResult) => (r.budget ? `${r.engine} @${r.budget}` : r.engine);
  const recovered = results.some((r) => r.recovery);
  type Answer = NonNullable<Answers>["answers"][number];
  const verdict = (a: Answer | undefined, none: string) => a ? (a.correct ? "✓ correct" : "✗ wrong") : none;
  const reply = (a: Answer | undefined) => a ? (a.reply ?? a.error ?? "") : "";
  // A tag list: `some` and the names when any row is named, else `none` when any row was looked at.
  const tag = (named: string[], looked: boolean, some: string, none: string) =>
    named.length > 0 ? [some, ...named] : looked ? [none] : [];
  const items: ExplorerItem[] = needles.map((n) => {
    const rows = results.map((r) => {
      const answers = n.kind === "needle" ? r.qa?.answers : r.probes?.answers;
      const a = answers?.find((x) => x.id === n.id);
      const rec = (n.kind === "needle" ? r.recovery?.qa : r.recovery?.probes)?.answers.find((x) =>
        x.id === n.id
      );
      const kept = r.status === "ok" && n.kind === "needle" ? r.needles.found_ids.includes(n.id) : null;
      return {
        engine: name(r),
        kept,
        correct: a ? a.correct : null,
        cells: [
          name(r),
          r.status === "ok" ? "ok" : `${r.status}: ${r.reason ?? ""}`,
          kept === null ? "n/a" : kept ? "✓ kept" : "✗ lost",
          verdict(a, "not asked"),
          reply(a),
          ...(recovered ? [verdict(rec, "-"), reply(rec)] : []),
        ],
      };
    });
    const lostBy = rows.filter((r) => r.kept === false).map((r) => r.engine);
    const wrongBy = rows.filter((r) => r.correct === false).map((r) => r.engine);
    return {
      id: n.id,
      label: n.question,
      tags: {
        kind: [n.kind],
        position: n.position ? [n.position] : [],
        type: n.type ? [n.type] : [],
        lost: tag(lostBy, rows.some((r) => r.kept !== null), ...LOST_TAGS),
        answer: tag(wrongBy, rows.some((r) => r.correct !== null), ...WRONG_TAGS),
      },
      sections: [
        {
          heading: n.kind === "needle" ? "Needle" : "Probe",
          open: true,
          facts: [
            ["id", n.id],
            ...(n.fact ? [["fact", n.fact] as [string, string]] : []),
            ["question", n.question],
            ["answer", n.answer],
            ...(n.position ? [["position", n.position] as [string, string]] : []),
            ...(n.type ? [["type", n.type] as [string, string]] : []),
          ],
        },
        {
          heading: `Per engine (${results.length})`,
          open: true,
          table: {
            headers: [
              ...["engine", "status", "fact in window", "QA", "reply"],
              ...(recovered ? ["QA +recovery", "reply +recovery"] : []),
            ],
            rows: rows.map((r) => r.cells),
          },
        },
      ],
    };
  });
  const engines = results.map(name);
  const choices = (values: Iterable<string>) =>
    [...new Set(values)].map((value) => ({ value, label: value }));
  const byEngine = (some: string, none: string) => [
    { value: some, label: "by some engine" },
    { value: none, label: "by no engine" },
    ...engines.map((e) => ({ value: e, label: `by ${e}` })),
  ];
  return {
    title: "engines needles and probes",
    itemName: needles.every((n) => n.kind === "probe") && needles.length > 0
      ? "probe"
      : needles.some((n) => n.kind === "probe")
      ? "needle or probe"
      : "needle",
    filters: [
      { id: "kind", label: "kind", options: choices(needles.map((n) => n.kind)) },
      { id: "position", label: "position", options: choices(needles.flatMap((n) => n.position || [])) },
      ...(needles.some((n) => n.type)
        ? [{
          id: "type",
          label: "type",
          options: choices([...new Set(needles.flatMap((n) => n.type || []))].sort()),
        }]
        : []),
      { id: "lost", label: "lost", options: byEngine(...LOST_TAGS) },
      { id: "answer", label: "answered wrong", options: byEngine(...WRONG_TAGS) },
    ],
    items,
    contexts: [],
  };
}
