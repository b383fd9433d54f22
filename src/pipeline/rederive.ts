/**
 * `verify --rederive`: re-executes every provider-free node from its stored inputs, checking byte-identity.
 * @module
 */
import { BlobStore } from "../store/blob_store.ts";
import type { CallRecord } from "../core/call_record.ts";
import { usageOfRecords } from "../core/usage.ts";
import { canonicalBytes, canonicalJson } from "../store/canonical.ts";
import { RecordQueue, ReplayChatModel, ReplayDecisionModel } from "../models/derive_call.ts";
import type { ChatModel, DecisionModel } from "../models/types.ts";
import { headerProblems, RUN_HEADER_STAGE } from "./run_header.ts";
import { sha256Hex } from "../store/hash.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import { readManifest } from "../store/run_dir.ts";
import {
  type AnyStageDef,
  type InputKind,
  inputKind,
  outputBytes,
  readInputBlob,
  readsInput,
} from "./stage.ts";

/** The stage declarations a run may hold, and the environment their bodies need. */
export interface StageRegistry {
  stage(name: string): AnyStageDef | undefined;
  /** What the bodies of a run's stages need (tokenizer, fixtures), built from the run itself. */
  environment(manifest: Manifest, store: BlobStore): Promise<unknown>;
  /** The environment a provider node is replayed in from its records; undefined where it cannot be. */
  replayEnvironment?(
    node: Node,
    env: unknown,
    models: { chat: ChatModel; decision: DecisionModel },
    producers: (hash: string) => readonly Node[],
  ): unknown | undefined;
  /** Usage totals recorded in params that are not the sum of the nodes' usage they count. */
  usageProblems?(manifest: Manifest): { node: Node; message: string }[];
  /** Answering models recorded in params (an aggregate's) that are not what the call records they count say. */
  modelProblems?(manifest: Manifest, store: BlobStore): Promise<{ node: Node; message: string }[]>;
}

/** What is wrong with a node: `differs` (provider-free node) or a provider node's kind. */
export type RederiveKind =
  | "differs"
  | "output_not_from_response"
  | "usage_mismatch"
  | "status_mismatch"
  | "header_mismatch";

export interface RederiveProblem {
  key: string;
  label: string;
  stage: string;
  kind: RederiveKind;
  message: string;
}

export interface RederiveReport {
  run: string;
  rederived: number;
  replayed: number;
  provider: number;
  problems: RederiveProblem[];
  ok: boolean;
}

/** Input blobs kept read at once while re-deriving. */
const READ_CACHE_LIMIT = 2_000;

/** Re-derives every provider-free node of the finished run `dir`. */
export async function rederiveRun(dir: string, registry: StageRegistry): Promise<RederiveReport> {
  const manifest = await readManifest(dir);
  const store = new BlobStore(dir);
  const env = await registry.environment(manifest, store);
  const report: RederiveReport = { run: dir, rederived: 0, replayed: 0, provider: 0, problems: [], ok: true };
  const cache = new Map<string, unknown>();
  const read = async (hash: string, kind: InputKind): Promise<unknown> => {
    const id = `${kind}:${hash}`;
    if (!cache.has(id)) {
      const value = await readInputBlob(store, hash, kind);
      if (cache.size >= READ_CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      cache.set(id, value);
    }
    return cache.get(id);
  };
  const problem = (node: Node, message: string, kind: RederiveKind = "differs") =>
    report.problems.push({ key: node.key, label: node.label, stage: node.stage, kind, message });
  const producedBy = new Map<string, Node[]>();
  for (const node of manifest.nodes) {
    for (const hash of new Set(Object.values(node.outputs))) {
      const list = producedBy.get(hash);
      if (list) list.push(node);
      else producedBy.set(hash, [node]);
    }
  }
  const producers = (hash: string) => producedBy.get(hash) ?? [];
  const bound = registry.stage(RUN_HEADER_STAGE) !== undefined ||
    manifest.nodes.some((n) => n.stage === RUN_HEADER_STAGE);
  for (const problemOfHeader of bound ? headerProblems(manifest) : []) {
    report.problems.push({
      key: "",
      label: "header",
      stage: RUN_HEADER_STAGE,
      kind: "header_mismatch",
      ...problemOfHeader,
    });
  }
  for (const { node, message } of registry.usageProblems?.(manifest) ?? []) {
    problem(node, message, "usage_mismatch");
  }
  for (const { node, message } of await registry.modelProblems?.(manifest, store) ?? []) {
    problem(node, message, "output_not_from_response");
  }
  for (const node of manifest.nodes) {
    const def = registry.stage(node.stage);
    if (!def) {
      problem(node, `no declaration of stage ${node.stage}: it cannot be re-derived`);
      continue;
    }
    // A node's usage must be its records' (each record's usage is checked against its response on replay).
    const records: CallRecord[] = [];
    for (const hash of node.requests) records.push(await store.getJson(hash) as CallRecord);
    const summed = usageOfRecords(records);
    if (canonicalJson(summed) !== canonicalJson(node.usage)) {
      problem(
        node,
        `the node's usage ${canonicalJson(node.usage)} is not the sum of its records' ${
          canonicalJson(summed)
        }`,
        "usage_mismatch",
      );
    }
    let bodyEnv = env;
    let queue: RecordQueue | undefined;
    if (def.provider) {
      queue = new RecordQueue(records);
      const chatModel = String((node.params as Record<string, unknown>).chat_model ?? "replay");
      const decisionModel = String((node.params as Record<string, unknown>).decision_model ?? "replay");
      bodyEnv = registry.replayEnvironment?.(node, env, {
        chat: new ReplayChatModel(chatModel, queue),
        decision: new ReplayDecisionModel(decisionModel, queue),
      }, producers);
      if (bodyEnv === undefined) {
        report.provider++;
        continue;
      }
    }
    const outputProblem = (message: string) =>
      problem(node, message, def.provider ? "output_not_from_response" : "differs");
    if (def.version !== node.version) {
      problem(
        node,
        `stage ${node.stage} is at version ${def.version}; the node was made by version ${node.version}`,
      );
      continue;
    }
    const params = def.params.safeParse(node.params);
    if (!params.success) {
      problem(node, `params do not match the declaration: ${params.error.issues[0]?.message}`);
      continue;
    }
    if (def.provider) report.replayed++;
    else report.rederived++;
    try {
      const inputs: Record<string, unknown> = {};
      for (const [name, hash] of Object.entries(node.inputs)) {
        inputs[name] = readsInput(def, name) ? await read(hash, inputKind(def, name)) : null;
      }
      // Params exactly as recorded; lazy inputs are read on demand, uncached (flat memory).
      const load = async (name: string) => {
        const hash = node.inputs[name];
        if (hash === undefined) throw new Error(`${node.stage}: no input named ${name}`);
        return await readInputBlob(store, hash, inputKind(def, name));
      };
      const outcome = await def.run({
        params: node.params,
        inputs,
        hashes: node.inputs,
        key: node.key,
        env: bodyEnv,
        load,
      });
      if (queue) {
        for (const p of queue.problems) problem(node, p.message, p.kind);
        if (queue.used !== records.length) {
          outputProblem(`the replay used ${queue.used} of the ${records.length} records the node holds`);
        }
        const rebuilt = (outcome.requests ?? []).map((r) => sha256Hex(canonicalBytes(r)));
        if (rebuilt.join(",") !== node.requests.join(",")) {
          outputProblem("the replayed requests are not the node's records, in order");
        }
      }
      const names = Object.keys(outcome.outputs).sort();
      const stored = Object.keys(node.outputs).sort();
      if (names.join("\n") !== stored.join("\n")) {
        outputProblem(
          `re-derived outputs [${names.join(", ")}] differ from the stored [${stored.join(", ")}]`,
        );
        continue;
      }
      for (const name of names) {
        const value = (outcome.outputs as Record<string, unknown>)[name];
        const hash = sha256Hex(outputBytes(value, def.outputs[name]?.kind ?? "json"));
        if (hash !== node.outputs[name]) {
          outputProblem(`output ${name} differs: stored ${node.outputs[name]}, re-derived ${hash}`);
        }
      }
      const status = outcome.status ?? "ok";
      if (status !== node.status || (outcome.reason ?? undefined) !== (node.reason ?? undefined)) {
        problem(
          node,
          `status differs: stored ${node.status} (${node.reason ?? ""}), re-derived ${status} ` +
            `(${outcome.reason ?? ""})`,
          def.provider ? "status_mismatch" : "differs",
        );
      }
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      outputProblem(`re-execution failed: ${error.message}`);
    }
  }
  report.ok = report.problems.length === 0;
  return report;
}

/** The report as lines for people: one per problem, then the count. */
export function formatRederiveReport(report: RederiveReport): string {
  const lines = report.problems.map((p) =>
    p.kind === "header_mismatch"
      ? `header_mismatch: ${p.message}`
      : `${p.stage} node ${p.key} (${p.label}): ${p.kind === "differs" ? "" : `${p.kind}: `}${p.message}`
  );
  lines.push(
    `rederive ${report.run}: re-derived ${report.rederived} node(s), replayed ${report.replayed} provider ` +
      `node(s) from their records, ${report.provider} provider node(s) not re-executed; ${
        report.ok ? "ok: every output is byte-identical" : `${report.problems.length} problem(s)`
      }`,
  );
  return lines.join("\n");
}
