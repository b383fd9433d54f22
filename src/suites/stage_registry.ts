/**
 * The stage registry `verify --rederive` uses: every stage declaration by name, the environment their bodies
 * need when re-executed (the tokenizer and what the run's suite declares in `Suite.rederive`), the replayed
 * provider stages and every suite's usage checks. No suite is named here.
 * @module
 */
import type { StageRegistry } from "../pipeline/rederive.ts";
import type { BlobStore } from "../store/blob_store.ts";
import type { Manifest, Node } from "../store/manifest.ts";
import { loadTokenCounter } from "../tokens/load.ts";
import { STAGES, suiteNamed, SUITES } from "./registry.ts";
import { answeringModelProblems } from "./answering_check.ts";

const byName = new Map(STAGES.map((s) => [s.name, s]));
const ANSWER_STAGES = new Set(SUITES.flatMap((s) => s.rederive?.answerStages ?? []).map((d) => d.name));
const ANSWERING_RULES = SUITES.flatMap((s) => s.rederive?.answering ?? []);
const COMPRESSION_STAGES = new Set(
  SUITES.flatMap((s) => s.rederive?.compressionStages ?? []).map((d) => d.name),
);

/**
 * Of the nodes that produced an answer's context blob (invalid contexts share theirs), the answer's own: the
 * one labelled as its context, else the one whose reason the answer recorded, else the first.
 */
function contextOf(answer: Node, candidates: readonly Node[]): Node | undefined {
  if (candidates.length <= 1) return candidates[0];
  const label = answer.label.replace(/^answer /, "context ").replace(/ ans=\d+/, "");
  return candidates.find((n) => n.label === label) ??
    candidates.find((n) => n.reason !== undefined && n.reason === answer.reason) ?? candidates[0];
}

/** The registry `verify --rederive` uses. */
export const STAGE_REGISTRY: StageRegistry = {
  stage: (name) => byName.get(name),
  usageProblems: (manifest) => SUITES.flatMap((s) => s.rederive?.usageProblems?.(manifest) ?? []),
  modelProblems: (manifest, store) => answeringModelProblems(manifest, store, ANSWERING_RULES),
  replayEnvironment(node, env, models, producers) {
    if (COMPRESSION_STAGES.has(node.stage)) return { ...(env as object), ...models };
    if (!ANSWER_STAGES.has(node.stage)) return undefined;
    // As the answer stage is run: an invalid context makes no call and gives its reason.
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
