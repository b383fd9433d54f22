/**
 * The stage executor: {@link Executor.runStage} runs a typed stage declaration once per node key (SHA-256 of
 * canonical `{stage, version, params, inputs}`), memoized within the run, taken from a resumed journal, or
 * reused from a `--frozen-run` with the same key (blobs copied in, `reused_from` recorded). Outputs handed back
 * are validated against the declaration; in check-only mode a provider stage without a frozen node is not run.
 *
 * @module
 */
import type { CallRecord } from "../core/call_record.ts";
import { addModelCalls, type ModelCalls, modelsOfRecords } from "../core/answering_models.ts";

import type { BlobStore } from "../store/blob_store.ts";
import { type Node, nodeKey, nodeKeyOfParamsText } from "../store/manifest.ts";
import { usageOfRecords } from "../core/usage.ts";
import type { RunDir } from "../store/run_dir.ts";
import { canonicalJson, NotIJsonError } from "../store/canonical.ts";
import { concatBytes } from "../core/bytes.ts";
import type { Progress } from "./progress.ts";
import { withRequestIdentity } from "../models/request_identity.ts";
import { type HeapBudget, heapBudget } from "../core/heap_budget.ts";
import { failedWithCalls, FrozenMismatchError, recoverHint } from "./frozen_check.ts";
import { FailureTally } from "./failures.ts";
import type { FrozenRun } from "./frozen_run.ts";
import {
  type AnyStageDef,
  inputKind,
  isTextBytes,
  outputBytes,
  type OutputSpecs,
  type OutputValues,
  readInputBlob,
  readsInput,
  type StageDef,
} from "./stage.ts";
import { parseCanonicalJson } from "../core/json_read.ts";

/** The answering models of `records`, per endpoint. */
function modelsByEndpoint(
  records: readonly Pick<CallRecord, "model" | "endpoint">[],
): Partial<Record<CallRecord["endpoint"], ModelCalls>> {
  const chat = modelsOfRecords(records.filter((r) => r.endpoint !== "systemone"));
  const systemone = modelsOfRecords(records.filter((r) => r.endpoint === "systemone"));
  return { chat, systemone };
}

/** What identifies one stage execution (built from a declaration by {@link Executor.runStage}). */
interface StageCall {
  stage: string;
  version: number;
  /** A stable readable identifier (e.g. `answer q=5a8b method=jev gen=1 ans=0`). */
  label: string;
  params: unknown;
  /** `canonicalJson(params)`, serialized once for the key and the body. */
  paramsText?: string;
  inputs: Record<string, string>;
  provider?: boolean;
  /** False for stages that must run afresh even when a frozen run has the same key (answers). Default true. */
  reuseFrozen?: boolean;
  /** Output names (check-only: a provider stage not run outputs null for each). */
  outputNames?: string[];
  /** Outputs stored as the UTF-8 bytes of a string (published files), not canonical JSON. */
  textOutputs?: string[];
  /** Outputs not handed back (null in every result: see `OutputSpec.held`). */
  unheldOutputs?: string[];
}

type OutputKinds = Pick<StageCall, "textOutputs" | "unheldOutputs">;

interface DeclaredOutputs {
  names: string[];
  textOutputs: string[];
  unheldOutputs: string[];
}

const declaredOutputs = new WeakMap<AnyStageDef, DeclaredOutputs>();

/** The output names and kinds of `def` (cached per declaration). */
function outputsOf(def: AnyStageDef): DeclaredOutputs {
  let known = declaredOutputs.get(def);
  if (known === undefined) {
    const names = Object.keys(def.outputs);
    known = {
      names,
      textOutputs: names.filter((n) => def.outputs[n].kind === "text"),
      unheldOutputs: names.filter((n) => def.outputs[n].held === false),
    };
    declaredOutputs.set(def, known);
  }
  return known;
}

const decoder = new TextDecoder();

/** What a stage function returns. */
export interface StageOutcome {
  /** Named JSON outputs; each is stored as a canonical JSON blob. */
  outputs: Record<string, unknown>;
  status?: "ok" | "invalid";
  reason?: string;
  requests?: CallRecord[];
}

/** What the executor keeps of a completed node (the journal holds the whole), so memory stays small. */
export type NodeOutcome = Pick<
  Node,
  "key" | "stage" | "outputs" | "requests" | "usage" | "status" | "reason" | "reused_from"
>;

/** The part of `node` the executor keeps. */
export function nodeOutcome(node: NodeOutcome): NodeOutcome {
  const { key, stage, outputs, requests, usage, status, reason, reused_from } = node;
  return {
    key,
    stage,
    outputs,
    requests,
    usage,
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(reused_from !== undefined ? { reused_from } : {}),
  };
}

/** A completed node with its outputs read back. */
export interface NodeResult<T = Record<string, unknown>> {
  node: NodeOutcome;
  outputs: T;
  /** Where the node came from when it was not executed now (`retry`: the run `--retry-failed` names). */
  reused: "memo" | "resume" | "frozen" | "retry" | null;
}

/** Options of an executor. */
export interface ExecutorOptions {
  frozen?: FrozenRun;
  /** Every reusable provider stage must find its frozen node, else {@link FrozenMismatchError}. */
  frozenStrict?: boolean;
  /** Do not run provider stages; such a stage without a frozen node becomes invalid ("check-only"). */
  checkOnly?: boolean;
  /**
   * `--retry-failed RUN`: a node of RUN with the same key that finished ok is taken as it is (answers too, with
   * its times and requests); a node that failed there, or that RUN lacks, is executed.
   */
  retry?: FrozenRun;
  progress?: Progress;
  /** Checked after every node: keeps the heap in use under a budget (default: the process's, null: none). */
  heapBudget?: HeapBudget | null;
}

/**
 * Runs stages into one run directory.
 *
 * @example
 * ```ts ignore
 * const executor = new Executor(run, { frozen, progress });
 * const node = await executor.runStage(upperStage, { label: "q1", params: {}, inputs: { text: hash } }, {});
 * node.outputs.upper; // validated by the declaration's schema, stored as a blob
 * ```
 */
export class Executor {
  /** The run being written. */
  readonly run: RunDir;
  readonly #options: ExecutorOptions;
  /** Executions in flight by key (dropped when settled). */
  readonly #inFlight = new Map<string, Promise<NodeResult>>();
  /** Completed nodes by key (outputs read back from the store on a memo hit). */
  readonly #done = new Map<string, { node: NodeOutcome; call: OutputKinds }>();
  readonly #resumed = new Map<string, Node>();
  /** Keys whose outputs were validated once in this process. */
  readonly #validated = new Set<string>();
  /** The answering models of the provider nodes executed now, by key. */
  readonly #answered = new Map<string, Partial<Record<CallRecord["endpoint"], ModelCalls>>>();
  readonly #heap: HeapBudget | null;
  /** Once a frozen-run refusal is thrown, every later execution is refused. */
  #refusal: FrozenMismatchError | undefined;
  /** Nodes of this run that failed for a provider or engine reason (resumed ones included). */
  readonly failures: FailureTally = new FailureTally();
  /** Counters of where nodes came from, for the report. */
  readonly counts = {
    executed: 0,
    memo: 0,
    resume: 0,
    frozen: 0,
    skipped_check_only: 0,
    /** Failed frozen provider nodes, never reused (recomputed when they made no call; else refused or skipped). */
    recomputed_failed: 0,
    /** `--retry-failed`: nodes taken from the retried run (finished ok there). */
    retry_reused: 0,
    /** `--retry-failed`: nodes that failed in the retried run, executed again. */
    retried: 0,
  };

  /** An executor over `run` (its journal's nodes are reused as resumed). */
  constructor(run: RunDir, options: ExecutorOptions = {}) {
    this.run = run;
    this.#options = options;
    this.#heap = options.heapBudget === undefined ? heapBudget : options.heapBudget;
    for (const node of run.resumedNodes) this.#resumed.set(node.key, node);
  }

  /** An executor taking every node `run`'s journal holds now as resumed (a merged run's replay). */
  static async overJournal(run: RunDir, options: ExecutorOptions = {}): Promise<Executor> {
    const executor = new Executor(run, options);
    for await (const node of run.readNodes()) executor.#resumed.set(node.key, node);
    return executor;
  }

  /** The blob store of the run. */
  get store(): BlobStore {
    return this.run.store;
  }

  /** True in check-only mode (provider stages are never run). */
  get checkOnly(): boolean {
    return this.#options.checkOnly ?? false;
  }

  /** The frozen run, when one was given. */
  get frozen(): FrozenRun | undefined {
    return this.#options.frozen;
  }

  /**
   * The models that answered `node`'s calls (name → calls), of one endpoint or all; read from the stored
   * records for a resumed or reused node, so a resumed run counts as an uninterrupted one.
   */
  async answeredBy(
    node: Pick<NodeOutcome, "key" | "requests">,
    endpoint?: CallRecord["endpoint"],
  ): Promise<ModelCalls> {
    let known = this.#answered.get(node.key);
    if (known === undefined) {
      const records: Pick<CallRecord, "model" | "endpoint">[] = [];
      for (const hash of node.requests) {
        const record = await this.store.getJson(hash) as { model?: unknown; endpoint?: unknown };
        records.push({
          model: typeof record.model === "string" ? record.model : undefined,
          endpoint: record.endpoint === "systemone" ? "systemone" : "chat",
        });
      }
      known = modelsByEndpoint(records);
      if (node.requests.length > 0) this.#answered.set(node.key, known);
    }
    if (endpoint !== undefined) return known[endpoint] ?? {};
    return addModelCalls({ ...(known.chat ?? {}) }, known.systemone ?? {});
  }

  /** Stores a JSON value as a declared-source-free input blob and returns its hash. */
  putJson(value: unknown): Promise<string> {
    return this.run.store.putJson(value);
  }

  /** Resolves when every execution started so far has finished (after a refusal, before cleaning up). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight.values()]);
  }

  #refuse(message: string): never {
    this.#refusal = new FrozenMismatchError(message);
    throw this.#refusal;
  }

  /** Runs (or reuses) a declared stage; outputs handed back are validated with the declared schemas. */
  async runStage<P, O extends OutputSpecs, E>(
    def: StageDef<P, O, E>,
    call: {
      label: string;
      params: P;
      inputs: Record<string, string>;
      /** The inputs already read, when the caller holds them (else read only if the node is executed). */
      values?: Record<string, unknown>;
      /** Overrides the declaration's `provider` (e.g. an answer whose context is invalid sends nothing). */
      provider?: boolean;
    },
    env: E,
  ): Promise<NodeResult<OutputValues<O>>> {
    const { names, textOutputs, unheldOutputs } = outputsOf(def);
    let paramsText: string | undefined;
    try {
      paramsText = canonicalJson(call.params);
    } catch (error) {
      if (!(error instanceof NotIJsonError)) throw error; // refused by the key, naming the path under `params`
    }
    const result = await this.#memoized(
      {
        stage: def.name,
        version: def.version,
        label: call.label,
        params: call.params,
        paramsText,
        inputs: call.inputs,
        provider: call.provider ?? def.provider,
        reuseFrozen: def.reuseFrozen,
        outputNames: names,
        textOutputs,
        unheldOutputs,
      },
      async (key) =>
        def.run({
          // As the journal records them (keys sorted): a body sees the same params now, resumed or rederived.
          params: parseCanonicalJson(paramsText ?? canonicalJson(call.params)) as P,
          inputs: call.values ?? await this.#readInputs(def, call.inputs),
          hashes: call.inputs,
          key,
          env,
          // A body that reads many inputs is one long node: the heap budget is checked as it reads.
          load: (name) => {
            this.#heap?.check();
            return this.#readInput(def, call.inputs, name);
          },
        }),
    );
    const outputs: Record<string, unknown> = {};
    // A memo hit reads the very bytes validated before (held or hash-checked): not validated again.
    const validated = this.#validated.has(result.node.key);
    for (const name of names) {
      const value = result.outputs[name];
      // Null for a provider stage skipped in check-only mode or an unheld output; else it must match.
      if (value === null && (result.node.status === "invalid" || def.outputs[name].held === false)) {
        outputs[name] = null;
      } else if (validated || def.outputs[name].plain?.(value)) outputs[name] = value;
      else {
        const parsed = def.outputs[name].schema.safeParse(value);
        if (!parsed.success) {
          throw new Error(
            `${def.name} node ${result.node.key}: output ${name} does not match its schema: ` +
              `${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`,
          );
        }
        outputs[name] = value; // validated; kept as read, so it equals the stored bytes exactly
      }
    }
    this.#validated.add(result.node.key);
    return { ...result, outputs: outputs as OutputValues<O> };
  }

  /** Runs (or reuses) one stage execution; `fn` receives the node key. */
  #memoized(call: StageCall, fn: (key: string) => Promise<StageOutcome>): Promise<NodeResult> {
    if (this.#refusal) return Promise.reject(this.#refusal);
    const key = call.paramsText === undefined
      ? nodeKey(call.stage, call.version, call.params, call.inputs)
      : nodeKeyOfParamsText(call.stage, call.version, call.paramsText, call.inputs);
    const done = this.#done.get(key);
    const existing = this.#inFlight.get(key);
    if (done || existing) {
      this.counts.memo++;
      const result = done
        ? this.#readOutputs(done.node, this.store, done.call).then((outputs) => ({
          node: done.node,
          outputs,
        }))
        : existing!;
      return result.then((r) => {
        this.#options.progress?.tick(call.stage);
        return { node: r.node, outputs: r.outputs, reused: "memo" as const };
      });
    }
    const promise = this.#execute(key, call, fn);
    this.#inFlight.set(key, promise);
    const kinds: OutputKinds = { textOutputs: call.textOutputs, unheldOutputs: call.unheldOutputs };
    promise.then((r) => this.#done.set(key, { node: r.node, call: kinds }), () => {})
      .finally(() => this.#inFlight.delete(key));
    return promise;
  }

  /** Reads a declaration's input blobs from the store (all but its hash-only and lazy ones). */
  async #readInputs(def: AnyStageDef, hashes: Record<string, string>): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const name of Object.keys(hashes)) {
      values[name] = readsInput(def, name) ? await this.#readInput(def, hashes, name) : null;
    }
    return values;
  }

  /** Reads one input blob of a declaration (bytes, text or parsed JSON, by its declared kind). */
  #readInput(def: AnyStageDef, hashes: Record<string, string>, name: string): Promise<unknown> {
    const hash = hashes[name];
    if (hash === undefined) throw new Error(`${def.name}: no input named ${name}`);
    return readInputBlob(this.store, hash, inputKind(def, name));
  }

  async #readOutputs(
    node: NodeOutcome,
    store: BlobStore,
    kinds: OutputKinds,
  ): Promise<Record<string, unknown>> {
    const outputs: Record<string, unknown> = {};
    for (const [name, hash] of Object.entries(node.outputs)) {
      if (kinds.unheldOutputs?.includes(name)) outputs[name] = null;
      else {
        outputs[name] = kinds.textOutputs?.includes(name) && node.status === "ok"
          ? await store.getText(hash)
          : await store.getJson(hash);
      }
    }
    return outputs;
  }

  /** Copies a node's output and request blobs from another run's store into this run's. */
  async #copyBlobs(from: FrozenRun, node: Node): Promise<void> {
    for (const hash of [...Object.values(node.outputs), ...node.requests]) {
      await this.store.copyFrom(from.store, hash);
    }
  }

  async #execute(
    key: string,
    call: StageCall,
    fn: (key: string) => Promise<StageOutcome>,
  ): Promise<NodeResult> {
    const progress = this.#options.progress;
    const resumed = this.#resumed.get(key);
    if (resumed) {
      this.counts.resume++;
      if (resumed.status === "invalid") {
        const records = [];
        for (const hash of resumed.requests) records.push(await this.store.getJson(hash) as CallRecord);
        this.failures.add({ ...resumed, label: call.label }, records);
      }
      progress?.tick(call.stage);
      return {
        node: nodeOutcome(resumed),
        outputs: await this.#readOutputs(resumed, this.store, call),
        reused: "resume",
      };
    }
    const retry = this.#options.retry;
    const prior = retry?.byKey(key);
    if (retry && prior?.status === "ok") {
      await this.#copyBlobs(retry, prior);
      await this.run.recordNode({ ...prior, label: call.label });
      this.counts.retry_reused++;
      progress?.tick(call.stage);
      return {
        node: nodeOutcome(prior),
        outputs: await this.#readOutputs(prior, this.store, call),
        reused: "retry",
      };
    }
    if (retry && prior !== undefined) this.counts.retried++;
    const frozen = this.#options.frozen;
    const frozenNode = frozen?.byKey(key);
    const mayReuse = frozen !== undefined && call.reuseFrozen !== false;
    // A failed provider node is never reused: refused when strict if it made calls, else recomputed.
    const failed = call.provider === true && frozenNode !== undefined && frozenNode.status !== "ok";
    if (mayReuse && this.#options.frozenStrict && call.provider) {
      if (frozenNode === undefined) {
        this.#refuse(
          `--frozen-run ${frozen.path}: ${call.label} is not in the frozen run (its key differs: an option, ` +
            `the input or the program changed); a frozen run makes no new compression call`,
        );
      }
      if (failed && failedWithCalls(frozenNode)) {
        this.#refuse(
          `--frozen-run ${frozen.path}: ${call.label} failed there (${frozenNode.reason ?? "invalid"}); a ` +
            `frozen run never reuses a failed node and makes no new compression call: ${recoverHint(frozen)}`,
        );
      }
    }
    if (mayReuse && failed) {
      this.counts.recomputed_failed++;
      progress?.note(
        failedWithCalls(frozenNode)
          ? `${call.label}: failed in the frozen run; not reused`
          : `${call.label}: failed in the frozen run without a provider call; recomputed`,
      );
    }
    if (frozen && frozenNode && mayReuse && !failed) {
      await this.#copyBlobs(frozen, frozenNode);
      const node: Node = {
        ...frozenNode,
        label: call.label,
        reused_from: { run: frozen.path, manifest: frozen.manifestHash, key },
      };
      await this.run.recordNode(node);
      this.counts.frozen++;
      progress?.tick(call.stage);
      return {
        node: nodeOutcome(node),
        outputs: await this.#readOutputs(node, this.store, call),
        reused: "frozen",
      };
    }
    const started = new Date().toISOString();
    let outcome: StageOutcome;
    if (this.#options.checkOnly && call.provider) {
      this.counts.skipped_check_only++;
      outcome = {
        outputs: Object.fromEntries((call.outputNames ?? []).map((name) => [name, null])),
        status: "invalid",
        reason: "check-only: no frozen node; would send a request",
      };
    } else {
      // Provider calls of this body carry its node key (request_identity.ts).
      outcome = await withRequestIdentity(key, () => fn(key));
      this.counts.executed++;
    }
    const outputs: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    // In code-unit order, as the journal has them (no copy when the node is written).
    for (const name of Object.keys(outcome.outputs).sort()) {
      const value = outcome.outputs[name];
      const text = call.textOutputs?.includes(name) && (typeof value === "string" || isTextBytes(value));
      if (!text) {
        const json = canonicalJson(value);
        outputs[name] = await this.store.putCanonical(json);
        // Read back from the canonical text, so a fresh result equals a resumed or reused one exactly.
        values[name] = call.unheldOutputs?.includes(name) ? null : parseCanonicalJson(json);
        continue;
      }
      const chunks = outputBytes(value, "text");
      // Bytes encoded here are the store's to hold; a body's own bytes are copied.
      outputs[name] = await this.store.put(chunks, { owned: typeof value === "string" });
      if (call.unheldOutputs?.includes(name)) values[name] = null;
      else values[name] = typeof value === "string" ? value : decoder.decode(concatBytes(chunks));
    }
    const records = outcome.requests ?? [];
    if (records.length > 0) this.#answered.set(key, modelsByEndpoint(records));
    const requests: string[] = [];
    for (const record of records) requests.push(await this.store.putJson(record, { hold: false }));
    // Members in code-unit order, as the journal's canonical line has them.
    const node: Node = {
      finished: new Date().toISOString(),
      inputs: call.inputs,
      key,
      label: call.label,
      outputs,
      params: call.paramsText === undefined ? call.params : parseCanonicalJson(call.paramsText),
      ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      requests,
      stage: call.stage,
      started,
      status: outcome.status ?? "ok",
      usage: usageOfRecords(records),
      version: call.version,
    };
    await this.run.recordNode(node);
    this.failures.add(node, records);
    this.#heap?.check();
    progress?.tick(call.stage, {
      failed: node.status === "invalid",
      notSent: this.#options.checkOnly === true && call.provider === true && records.length === 0 &&
        outcome.reason?.startsWith("check-only") === true,
      retries: records.reduce((n, r) => n + Math.max(0, r.attempts - 1), 0),
    });
    return { node: nodeOutcome(node), outputs: values, reused: null };
  }
}
