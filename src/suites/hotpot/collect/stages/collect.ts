/**
 * The collect stages: `hotpot-select` (the selection, frozen before any model call, from the environment's
 * candidates of the `dataset` source), `hotpot-collect` (one question's trajectory; a provider stage, never
 * re-executed) and `hotpot-corpus` (corpus.json and selection.json, published as outputs).
 * @module
 */
import { z } from "zod";
import type { HotpotRecord } from "../../../../data/hotpot_record.ts";
import { UsageError } from "../../../../errors.ts";
import { defineStage } from "../../../../pipeline/stage.ts";
import { type CollectMode, collectQuestion } from "../collect_question.ts";
import {
  selectCandidates,
  type SelectionCandidate,
  type SelectionOptions,
  SelectionOptionsSchema,
  type SelectionReport,
  SelectionReportSchema,
} from "../select.ts";
import { questionInShard } from "../../../../pipeline/shard.ts";
import { ChatMessageSchema } from "../../../../models/messages.ts";
import type { DatasetRecords } from "../dataset_file.ts";
import { CollectionModeSchema, type Corpus, CORPUS_FORMAT, type CorpusQuestion } from "../../corpus.ts";

/** The selected ids and the selection report of a dataset's selection candidates, in file order. */
export function selectionReportOf(
  candidates: readonly SelectionCandidate[],
  selection: SelectionOptions,
): { ids: string[]; report: SelectionReport } {
  const { selected, ...report } = selectCandidates(candidates, selection);
  return { ids: selected.map((candidate) => candidate.id), report };
}

/** What the selection stage needs: the selection candidates of the dataset's records (its `dataset` source). */
export interface HotpotSelectEnv {
  candidates(options: SelectionOptions): Promise<SelectionCandidate[]>;
}

/** The `hotpot-select` stage. */
export const hotpotSelectStage = defineStage({
  name: "hotpot-select",
  version: 1,
  doc: "The frozen question selection: ascending SHA-256 of seed:id within per-type quotas and filters.",
  params: SelectionOptionsSchema,
  inputs: ["dataset"],
  hashOnlyInputs: ["dataset"],
  outputs: {
    selected: { schema: z.object({ ids: z.array(z.string()) }), doc: "the selected question ids" },
    report: { schema: SelectionReportSchema, doc: "records considered, removed by each filter, quotas" },
  },
  provider: false,
  async run({ params, env }: { params: SelectionOptions; env: HotpotSelectEnv }) {
    const { ids, report } = selectionReportOf(await env.candidates(params), params);
    return { outputs: { selected: { ids }, report } };
  },
});

/** What the corpus stage needs: the selected records of the run's `dataset` source. */
export interface HotpotCorpusEnv {
  records(ids: ReadonlySet<string>): Promise<DatasetRecords>;
}

const CheckSchema = z.object({
  valid: z.boolean(),
  reason: z.string().optional(),
  files_unchanged: z.enum(["verified", "not verifiable"]).optional(),
}).loose().nullable();

const CollectionSchema = z.object({
  messages: z.array(ChatMessageSchema),
  system_prompt: z.object({ text: z.string(), sha256: z.string() }).nullable(),
}).loose().nullable();

const ShardSchema = z.object({ index: z.number().int().positive(), count: z.number().int().positive() });

/** A question's validity as its collect node's check says: valid or not (and why), and the workspace check. */
export function questionValidity(
  check: z.infer<typeof CheckSchema>,
): Pick<CorpusQuestion, "valid" | "reason" | "files_unchanged"> {
  return {
    valid: check?.valid === true,
    ...(check !== null && !check.valid ? { reason: check.reason } : {}),
    files_unchanged: check?.files_unchanged ?? "not verifiable",
  };
}

/** The published JSON text of a value (as `RunDir.writeJsonFile` writes it). */
function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

/** A line break and the indentation of an element of the corpus's `questions` array. */
const ELEMENT_INDENT = "\n    ";

/**
 * The corpus's published bytes in chunks: `head` (its text with `"questions": []`) with the questions put in,
 * exactly `jsonText` of the whole (no JSON string holds a raw line break, so the marker is the key's).
 */
function withQuestions(head: string, questions: readonly Uint8Array[]): Uint8Array[] {
  if (questions.length === 0) return [new TextEncoder().encode(head)];
  const marker = '\n  "questions": []';
  const at = head.indexOf(marker);
  if (at < 0) throw new Error("hotpot-corpus: no questions key in the corpus head");
  const encoder = new TextEncoder();
  return [
    encoder.encode(`${head.slice(0, at)}\n  "questions": [`),
    ...questions,
    encoder.encode(`\n  ]${head.slice(at + marker.length)}`),
  ];
}

const CorpusParams = z.object({
  /** The dataset as corpus.json names it (the path given, or the embedded data's name), and its SHA-256. */
  dataset: z.object({ path: z.string(), sha256: z.string() }),
  selection: SelectionOptionsSchema,
  collection: CollectionModeSchema,
  /** The outside agent's command (`--agent exec:CMD` collections). */
  agent: z.string().optional(),
  shard: ShardSchema.optional(),
});

/** The `hotpot-corpus` stage. */
export const hotpotCorpusStage = defineStage({
  name: "hotpot-corpus",
  version: 1,
  doc: "corpus.json and selection.json of a collection, from its selection, collect nodes and dataset.",
  params: CorpusParams,
  // The select node's outputs, each question's collect node's; the dataset's records come through `env`.
  inputs: ["dataset", "selected", "report", "check:*", "collection:*"],
  hashOnlyInputs: ["dataset"],
  lazyInputs: ["check:*", "collection:*"],
  outputs: {
    "corpus.json": {
      schema: z.string(),
      kind: "text",
      held: false,
      doc: "the corpus, published as corpus.json",
    },
    "selection.json": {
      schema: z.string(),
      kind: "text",
      doc: "the selection report, published as selection.json",
    },
  },
  provider: false,
  async run({ params, inputs, load, env }: {
    params: z.infer<typeof CorpusParams>;
    inputs: Record<string, unknown>;
    load: (name: string) => Promise<unknown>;
    env: HotpotCorpusEnv;
  }) {
    const report = SelectionReportSchema.parse(inputs.report); // published as read (key order kept)
    const ids = z.object({ ids: z.array(z.string()) }).parse(inputs.selected).ids
      .filter((id) => questionInShard(id, params.shard));
    const { byId, total } = await env.records(new Set(ids));
    // corpus.json is built as UTF-8 chunks, a question at a time: never one tree of objects or one string.
    const questions: Uint8Array[] = [];
    const encoder = new TextEncoder();
    for (const id of ids) {
      const record = byId.get(id);
      if (!record) throw new Error(`hotpot-corpus: the dataset has no record ${id}`);
      // Validated, then used as read (zod's copies would reorder keys; corpus.json keeps the stored order).
      const check = await load(`check:${id}`) as z.infer<typeof CheckSchema>;
      CheckSchema.parse(check);
      const collection = await load(`collection:${id}`) as z.infer<typeof CollectionSchema>;
      CollectionSchema.parse(collection);
      const { valid, reason, files_unchanged } = questionValidity(check);
      const question: CorpusQuestion = {
        id,
        type: record.type,
        level: record.level,
        question: record.question,
        context: record.context,
        collection: params.collection,
        valid,
        ...(reason === undefined ? {} : { reason }),
        system_prompt: collection?.system_prompt ?? null,
        files_unchanged,
        trajectory: collection?.messages ?? [],
      };
      const text = JSON.stringify(question, null, 2).replaceAll("\n", ELEMENT_INDENT);
      questions.push(encoder.encode(`${questions.length === 0 ? "" : ","}${ELEMENT_INDENT}${text}`));
    }
    const s = params.selection;
    const corpus: Corpus = {
      format: CORPUS_FORMAT,
      dataset: { path: params.dataset.path, sha256: params.dataset.sha256, records: total },
      protocol: {
        seed: s.seed,
        bridge: s.bridge,
        comparison: s.comparison,
        min_chars: s.minChars,
        max_chars: s.maxChars,
        collection: params.collection,
        ...(params.agent !== undefined ? { agent: params.agent } : {}),
      },
      selection: {
        considered: report.considered,
        removed: report.removed,
        skipped_quota_full: report.skipped_quota_full,
      },
      ...(params.shard !== undefined ? { shard: params.shard } : {}),
      questions: [],
      gold: Object.fromEntries(ids.map((id) => {
        const r = byId.get(id)!;
        return [id, { answer: r.answer, supporting_facts: r.supporting_facts }];
      })),
    };
    return {
      outputs: {
        "corpus.json": withQuestions(jsonText(corpus), questions),
        "selection.json": jsonText(inputs.report),
      },
    };
  },
});

const loose = z.record(z.string(), z.unknown());

/** What a collect node's body needs besides its inputs: how to collect, the question and its workspace. */
export interface CollectEnv {
  mode: CollectMode;
  record: HotpotRecord;
  /** A fresh directory for the question's workspace. */
  workspace: string;
  /** A merge's replay: the node must come from the journal, so running the body is refused. */
  replay?: boolean;
}

/** `hotpot-collect`: scripted read_file calls, a live agent loop, an imported Hermes session or an outside agent. */
export const hotpotCollectStage = defineStage({
  name: "hotpot-collect",
  version: 4,
  doc:
    "One question's trajectory: scripted read_file calls over a real workspace, a live agent loop, an imported " +
    "Hermes session (its raw file, the run source session:<id>, is the input `session`), or an outside agent.",
  params: loose,
  inputs: ["dataset", "session"],
  // The dataset is an edge only (the record comes with `env`); the session file is read byte for byte.
  hashOnlyInputs: ["dataset"],
  bytesInputs: ["session"],
  outputs: {
    collection: {
      schema: loose.nullable(),
      doc: "the collected messages and the agent's initial system prompt (text, sha256)",
    },
    check: {
      schema: loose,
      doc: "the collection checks' verdict and whether files unchanged was verifiable",
    },
    session_text: {
      schema: z.string().nullable().optional(),
      doc: "an outside agent's raw stdout (agent mode only)",
    },
  },
  provider: true,
  async run({ inputs, env }: { inputs: Record<string, unknown>; env: CollectEnv }) {
    if (env.replay) {
      throw new UsageError(
        `merge: no shard holds the collection of question ${env.record.id}; the shards are incomplete`,
      );
    }
    const session = inputs.session instanceof Uint8Array ? inputs.session : null;
    return await collectQuestion(env.mode, env.record, env.workspace, session);
  },
});
