/**
 * The stage executor. Its one entry point is {@link Executor.runStage}: every node runs a typed stage declaration
 * (`stage.ts`), whose outputs are validated whenever they are handed back. A stage execution is identified by its node key (SHA-256 of canonical `{stage, version,
 * params, inputs}`); the executor runs each key once per run (memo: a key in flight is awaited, a completed key's
 * outputs are read back from the store, so the executor never holds every node's outputs), takes completed
 * nodes from the journal of a resumed run, and reuses nodes of a `--frozen-run` whose key matches (copying their blobs in, recording
 * `reused_from`). In check-only mode a stage that would call a provider and has no frozen node is not run.
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
import { parseJson } from "../core/json_read.ts";

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
  /** A stable human-readable identifier (e.g. `answer q=5a8b method=jev gen=1 ans=0`). */
  label: string;
  params: unknown;
  /** `canonicalJson(params)`, serialized once for the key and the body (absent: serialized for the key). */
  paramsText?: string;
  /** Named input blobs (hashes). */
  inputs: Record<string, string>;
  /** True when the stage calls a model provider. */
  provider?: boolean;
  /** False for stages that must run afresh even when a frozen run has the same key (answers). Default true. */
  reuseFrozen?: boolean;
  /** The stage's output names; in check-only mode a provider stage that is not run outputs null for each. */
  outputNames?: string[];
  /** Outputs stored as the exact UTF-8 bytes of a string (published files), not as canonical JSON. */
  textOutputs?: string[];
  /** Outputs not handed back (null in every result: see `OutputSpec.held`). */
  unheldOutputs?: string[];
}

/** Which outputs of a call are text and which are not held (see {@link StageCall}). */
type OutputKinds = Pick<StageCall, "textOutputs" | "unheldOutputs">;

/** A declaration's output names and kinds, worked out once per declaration. */
interface DeclaredOutputs {
  names: string[];
  textOutputs: string[];
  unheldOutputs: string[];
}

const declaredOutputs = new WeakMap<AnyStageDef, DeclaredOutputs>();

/** The output names and kinds of `def` (cached: a declaration is not changed once declared). */
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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** What a stage function returns. */
export interface StageOutcome {
  /** Named JSON outputs; each is stored as a canonical JSON blob. */
  outputs: Record<string, unknown>;
  status?: "ok" | "invalid";
  reason?: string;
  requests?: CallRecord[];
}

/**
 * What callers read of a completed node: the journal holds the whole node (its params, inputs, label and
 * times), and the executor holds only this much of each node for the rest of the run (memo hits), so a run's
 * memory grows little with its number of nodes.
 */
export type NodeOutcome = Pick<
  Node,
  "key" | "stage" | "outputs" | "requests" | "usage" | "status" | "reason" | "reused_from"
>;

/** The part of `node` the executor keeps (see {@link NodeOutcome}). */
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
  /**
   * With a frozen run: every provider stage that may reuse frozen nodes must find its node there, or the
   * executor throws {@link FrozenMismatchError} (frozen_check.ts). Off in check-only mode.
   */
  frozenStrict?: boolean;
  /** Do not run provider stages; such a stage without a frozen node becomes invalid ("check-only"). */
  checkOnly?: boolean;
  /**
   * `--retry-failed RUN`: every node of RUN whose key matches and that finished ok is taken as it is (answers
   * included: the copy is that node, its times and requests, so the new run counts what RUN spent on it as a
   * clean run would); a node that failed there, and any node RUN does not have (what depends on a failed
   * node has new inputs, so a new key), is executed.
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
  /** Executions in flight by key; dropped when they settle, so outputs are not held for the whole run. */
  readonly #inFlight = new Map<string, Promise<NodeResult>>();
  /** Completed nodes of this run by key (their outputs stay in the store and are read back on a memo hit). */
  readonly #done = new Map<string, { node: NodeOutcome; call: OutputKinds }>();
  readonly #resumed = new Map<string, Node>();
  /** The answering models of the provider nodes executed now, by key (small: name → calls). */
  readonly #answered = new Map<string, Partial<Record<CallRecord["endpoint"], ModelCalls>>>();
  readonly #heap: HeapBudget | null;
  /** Set once a frozen-run refusal was thrown: every later execution is refused at once. */
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

  /**
   * An executor over `run` that takes every node its journal holds now as resumed: the replay of a merged run,
   * whose journal holds the shards' nodes.
   */
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
   * The models that answered `node`'s calls (its call records' `model`: name → calls), of one endpoint or all.
   * Known for a node executed now; read from its stored records for one resumed or reused from a frozen run, so
   * a resumed run counts the same as an uninterrupted one.
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

  /**
   * Runs (or reuses) a declared stage: `inputs` are the input blob hashes, `values` the same inputs already
   * read (the caller holds them); outputs read back from the store are validated with the declared schemas.
   */
  async runStage<P, O extends OutputSpecs, E>(
    def: StageDef<P, O, E>,
    call: {
      label: string;
      params: P;
      inputs: Record<string, string>;
      /**
       * The same inputs already read, when the caller holds them; absent, the inputs are read from the store
       * (by the declaration's input kinds) only if the node is executed now.
       */
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
          // As the journal records them (canonical: object keys sorted), so a body run now, after a resume
          // and by `--rederive` sees the same params, key order included.
          params: parseJson(paramsText ?? canonicalJson(call.params)) as P,
          inputs: call.values ?? await this.#readInputs(def, call.inputs),
          hashes: call.inputs,
          key,
          env,
          // A body that reads many inputs (an aggregate, a report) is one long node: the budget is checked as
          // it reads, not only after it.
          load: (name) => {
            this.#heap?.check();
            return this.#readInput(def, call.inputs, name);
          },
        }),
    );
    const outputs: Record<string, unknown> = {};
    for (const name of names) {
      const value = result.outputs[name];
      // A provider stage skipped in check-only mode outputs null; so does an output not held; anything else
      // must match its schema.
      if (value === null && (result.node.status === "invalid" || def.outputs[name].held === false)) {
        outputs[name] = null;
      } else {
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
    // Only the output kinds are kept with the outcome, not the call: its params and inputs are the journal's.
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
    // A failed provider node is never reused: one that failed after provider calls cannot be redone without
    // a new call (refused when strict); one that failed without any call is recomputed from its inputs. (A
    // pure stage's failure is a function of its inputs: reusing it equals recomputing it.)
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
    // In code-unit order, as the journal has them (the node is then written without a copy).
    for (const name of Object.keys(outcome.outputs).sort()) {
      const value = outcome.outputs[name];
      const text = call.textOutputs?.includes(name) && (typeof value === "string" || isTextBytes(value));
      // A JSON output is stored as the UTF-8 of its canonical text (what `outputBytes` gives), kept as text too.
      const json = text ? undefined : canonicalJson(value);
      const chunks = json === undefined ? outputBytes(value, "text") : [encoder.encode(json)];
      // Bytes encoded here are the store's to hold as they are; a body's own bytes are copied.
      outputs[name] = await this.store.put(chunks, {
        owned: json !== undefined || typeof value === "string",
      });
      if (call.unheldOutputs?.includes(name)) values[name] = null;
      else if (text && typeof value === "string") values[name] = value;
      else if (text) values[name] = decoder.decode(concatBytes(chunks));
      // Read back from the canonical text, so a fresh result equals a resumed or reused one exactly.
      else values[name] = parseJson(json!);
    }
    const records = outcome.requests ?? [];
    if (records.length > 0) this.#answered.set(key, modelsByEndpoint(records));
    const requests: string[] = [];
    // Call records are not read back while the run works: not held in memory (see `PutOptions.hold`).
    for (const record of records) requests.push(await this.store.putJson(record, { hold: false }));
    // Members in code-unit order, as the journal's canonical line has them: written without a copy.
    const node: Node = {
      finished: new Date().toISOString(),
      inputs: call.inputs,
      key,
      label: call.label,
      outputs,
      // Parsed back from its canonical text: members already in code-unit order, so the node is not copied.
      params: call.paramsText === undefined ? call.params : parseJson(call.paramsText),
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
