/**
 * Every stage declaration of every suite, by name, and the environment their bodies need when re-executed
 * from a finished run (`verify --rederive`): the tokenizer the run recorded and what the run's suite declares
 * (`Suite.rederive`: e.g. the sweep fixture of its `trajectory` source, the selection candidates and selected
 * records of a hotpot run's `dataset` source); the replayed provider stages and the usage checks of every
 * suite. No suite is named here.
 *
 * @module
 */
import type { StageRegistry } from "../pipeline/rederive.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { STAGES, suiteNamed, SUITES } from "./registry.ts";
import { answeringModelProblems } from "./answering_check.ts";

export { STAGES } from "./registry.ts";

const byName = new Map(STAGES.map((s) => [s.name, s]));

/** The outputs the stage `name` declares (undefined for a stage this program does not know): for `verify`. */
export function declaredOutputs(name: string): readonly string[] | undefined {
  const def = byName.get(name);
  return def === undefined ? undefined : Object.keys(def.outputs);
}

const ANSWER_STAGES = new Set(
  SUITES.flatMap((s) => s.rederive?.answerStages ?? []).map((d) => d.name),
);
const ANSWERING_RULES = SUITES.flatMap((s) => s.rederive?.answering ?? []);
const COMPRESSION_STAGES = new Set(
  SUITES.flatMap((s) => s.rederive?.compressionStages ?? []).map((d) => d.name),
);

/**
 * Of the nodes that produced an answer's context blob (invalid contexts share theirs: null), the answer's own:
 * the one labelled as its context (`answer q=… ans=N` → `context q=…`), else the one whose reason the answer
 * recorded, else the first. Whichever is chosen, an answer that made no call is invalid, so a flip to ok is
 * named.
 */
function contextOf(answer: Node, candidates: readonly Node[]): Node | undefined {
  if (candidates.length <= 1) return candidates[0];
  const label = answer.label.replace(/^answer /, "context ").replace(/ ans=\d+/, "");
  return candidates.find((n) => n.label === label) ??
    candidates.find((n) => n.reason !== undefined && n.reason === answer.reason) ?? candidates[0];
}

/** Every suite's check of the compression usage its aggregates and reports record. */
function compressionUsageProblems(manifest: Manifest): { node: Node; message: string }[] {
  return SUITES.flatMap((s) => s.rederive?.usageProblems?.(manifest) ?? []);
}

/** The registry `verify --rederive` uses. */
export const STAGE_REGISTRY: StageRegistry = {
  stage: (name) => byName.get(name),
  usageProblems: compressionUsageProblems,
  modelProblems: (manifest, store) => answeringModelProblems(manifest, store, ANSWERING_RULES),
  replayEnvironment(node, env, models, producers) {
    if (COMPRESSION_STAGES.has(node.stage)) return { ...(env as object), ...models };
    if (!ANSWER_STAGES.has(node.stage)) return undefined;
    // As the answer stage is run: an invalid context makes no call and gives its reason. Invalid contexts
    // share their messages blob (null): the answer's context is the producer whose params agree with its own.
    const context = node.inputs.context === undefined
      ? undefined
      : contextOf(node, producers(node.inputs.context));
    const contextReason = context?.status === "ok" ? null : context?.reason ?? "context invalid";
    return { chat: models.chat, contextReason };
  },
  async environment(manifest: Manifest, store: BlobStore) {
    const counter = manifest.tokenizer ? await loadTokenCounter() : undefined;
    const own = await suiteNamed(manifest.suite)?.rederive?.environment?.(manifest, store);
    return { counter, ...own };
  },
};
