/**
 * The one method registry every suite uses. A method is one declaration: what it needs (a ranking, a summary),
 * its parameters and how it builds a context's evidence from evidence units. hotpot and sweep run it over their
 * units, engines over a transcript's messages (method_engine.ts); any engine is a method too (engine_method.ts).
 *
 * @module
 */
import type { ChatMessage } from "../models/messages.ts";
import { countPrompt, fitCountInOrder } from "../tokens/budget.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { bySourcePosition, type EvidenceUnit, inSourceOrder } from "./evidence_unit.ts";

/** A compression artifact a method needs, frozen per generation before any answer. */
export type MethodNeed = "ranking" | "summary";

/**
 * What a suite gives a method: its evidence units (source order), how a complete answer input is rendered
 * (summary "": none) and the tokens it may take. A frozen frame never changes ({@link frameMemo}).
 */
export interface EvidenceFrame {
  readonly counter: TokenCounter;
  readonly units: readonly EvidenceUnit[];
  render(kept: readonly EvidenceUnit[], summary: string): ChatMessage[];
  /** The exact token count of `render(kept, summary)`, where the frame counts faster ({@link frameTokens}). */
  count?(kept: readonly EvidenceUnit[], summary: string): number;
  readonly limit: number;
}

/** The exact token count of a frame's answer input from `kept` and `summary`. */
export function frameTokens(frame: EvidenceFrame, kept: readonly EvidenceUnit[], summary: string): number {
  return frame.count ? frame.count(kept, summary) : countPrompt(frame.counter, frame.render(kept, summary));
}

/** The frozen artifacts of one generation: unit ids best first, a summary with the units kept beside it. */
export interface MethodArtifacts {
  order?: readonly string[];
  summary?: { text: string; kept: readonly string[] };
}

/** A context's evidence: units kept verbatim, a summary (""), the rendered count when already known. */
export interface Evidence {
  kept: EvidenceUnit[];
  summary: string;
  tokens?: number;
}

/** A method's parameters (numbers only, so that they canonicalise and compare simply). */
export type MethodParams = Readonly<Record<string, number>>;

/** One method over evidence units. */
export interface MethodDeclaration {
  readonly kind: "units";
  readonly name: string;
  readonly needs: readonly MethodNeed[];
  /** The artifacts {@link MethodDeclaration.evidence} reads (default: all it needs). */
  readonly contextNeeds?: readonly MethodNeed[];
  /** The methods this one combines: paired stats pair each with it (and every other compressed method). */
  readonly parts?: readonly string[];
  /** False only for `full`, whose size is recorded, never limited. */
  readonly ceilingBinds: boolean;
  /** Parameter defaults; a run's option of the same name sets one ({@link suiteSetParams}). */
  readonly params: MethodParams;
  /** The units kept verbatim beside the summary, chosen before summarizing (absent: none; the sweep's S). */
  retain?(frame: EvidenceFrame, order: readonly string[] | undefined, params: MethodParams): EvidenceUnit[];
  /** The evidence part of the context, or null for the whole uncompressed history. */
  evidence(frame: EvidenceFrame, artifacts: MethodArtifacts, params: MethodParams): Evidence | null;
}

/** A context engine (`spec`) as a method; `deterministic`: it calls no model, so one generation suffices. */
export interface EngineMethod {
  readonly kind: "engine";
  readonly name: string;
  readonly spec: string;
  readonly needs: readonly MethodNeed[];
  readonly ceilingBinds: true;
  readonly deterministic: boolean;
}

/**
 * A method's parameters as a run sets them: the run's value of the same name, else the default.
 *
 * @example
 * ```ts
 * import { declaredMethod, suiteSetParams } from "./registry.ts";
 * const fusion = declaredMethod("jev+summary")!;
 * suiteSetParams(fusion, { fusion_share: 0.5 }); // { fusion_share: 0.5 }
 * ```
 */
export function suiteSetParams(method: Method, set: MethodParams): Record<string, number> {
  if (method.kind !== "units") return {};
  const params = Object.entries(method.params);
  return Object.fromEntries(
    params.map(([name, value]) => [name, Object.hasOwn(set, name) ? set[name] : value]),
  );
}

/** Any method a suite can run. */
export type Method = MethodDeclaration | EngineMethod;

/** What methods computed from frozen frames, per frame, by what it was computed from. */
const frameMemos = new WeakMap<EvidenceFrame, Map<string, unknown>>();

/** `compute()`, kept for a frozen frame under `key` (naming all else the result depends on). */
export function frameMemo<T>(frame: EvidenceFrame, key: string, compute: () => T): T {
  if (!Object.isFrozen(frame)) return compute();
  let memo = frameMemos.get(frame);
  if (memo === undefined) frameMemos.set(frame, memo = new Map());
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}

const summaryEvidence = (frame: EvidenceFrame, artifacts: MethodArtifacts): Evidence => {
  if (!artifacts.summary) throw new Error("this method needs a summary");
  return { kept: inSourceOrder(frame.units, artifacts.summary.kept), summary: artifacts.summary.text };
};

/** The fusion's retained units: ranked whole units within `share` of the evidence space, in source order. */
export function fusionRetained(
  frame: EvidenceFrame,
  order: readonly string[],
  share: number,
): EvidenceUnit[] {
  const empty = frameMemo(frame, "empty", () => frameTokens(frame, [], ""));
  return [...rankedWithin(frame, order, empty + Math.floor(share * (frame.limit - empty))).kept];
}

/** The Jev selection of `order` within `limit` tokens, rendered without a summary (kept per frozen frame). */
function rankedWithin(frame: EvidenceFrame, order: readonly string[], limit: number) {
  return frameMemo(
    frame,
    `ranked ${limit} ${JSON.stringify(order)}`,
    () => rankedFit(frame.units, order, (kept) => frameTokens(frame, kept, ""), limit),
  );
}

/** A built-in method over units: the ceiling limits it and it has no parameters unless it says otherwise. */
const builtIn = (
  method: Omit<MethodDeclaration, "kind" | "ceilingBinds" | "params"> & Partial<MethodDeclaration>,
): MethodDeclaration => ({ kind: "units", ceilingBinds: true, params: {}, ...method });

const BUILT_IN: MethodDeclaration[] = [
  builtIn({ name: "full", needs: [], ceilingBinds: false, evidence: () => null }),
  builtIn({
    name: "jev",
    needs: ["ranking"],
    evidence(frame, artifacts) {
      const order = artifacts.order;
      if (!order) throw new Error("jev needs a ranking");
      const { kept, tokens } = rankedWithin(frame, order, frame.limit);
      return { kept: [...kept], summary: "", tokens };
    },
  }),
  builtIn({ name: "summary", needs: ["summary"], evidence: summaryEvidence }),
  builtIn({
    name: "jev+summary",
    needs: ["ranking", "summary"],
    parts: ["jev", "summary"],
    contextNeeds: ["summary"],
    // The seed's split: ranked units within 40% of the evidence space, the summary in all the space left.
    params: { fusion_share: 0.4 },
    retain(frame, order, params) {
      if (!order) throw new Error("jev+summary needs a ranking");
      return fusionRetained(frame, order, params.fusion_share ?? 0);
    },
    evidence: summaryEvidence,
  }),
  builtIn({
    name: "summary+top",
    needs: ["ranking", "summary"],
    params: { n: 1 },
    // The summary is of all evidence (the sweep's S); the top units are added beside it.
    evidence(frame, artifacts, params) {
      if (!artifacts.order || !artifacts.summary) {
        throw new Error("summary+top needs a ranking and a summary");
      }
      const top = artifacts.order.slice(0, params.n ?? 0);
      return { kept: inSourceOrder(frame.units, top), summary: artifacts.summary.text };
    },
  }),
];

const REGISTRY = new Map<string, MethodDeclaration>(BUILT_IN.map((m) => [m.name, m]));

/** The methods a hotpot run measures by default, in report order. */
export const DEFAULT_UNIT_METHODS = ["full", "jev", "summary", "jev+summary"] as const;

/**
 * Adds a method (its name must be new) and returns it: hotpot and sweep run it by `--method NAME`, engines by
 * `--engine NAME`.
 *
 * @example
 * ```ts
 * import { registerMethod } from "./registry.ts";
 * registerMethod({
 *   kind: "units",
 *   name: "nothing", // no evidence at all: a floor for the others
 *   needs: [],
 *   ceilingBinds: true,
 *   params: {},
 *   evidence: () => ({ kept: [], summary: "" }),
 * });
 * ```
 */
export function registerMethod(method: MethodDeclaration): MethodDeclaration {
  if (REGISTRY.has(method.name)) throw new Error(`method ${method.name} is declared twice`);
  REGISTRY.set(method.name, method);
  return method;
}

/** The declared method named `name`, if any. */
export function declaredMethod(name: string): MethodDeclaration | undefined {
  return REGISTRY.get(name);
}

/** Every declared method's name, in declaration order. */
export function declaredMethodNames(): string[] {
  return [...REGISTRY.keys()];
}

/** The artifacts a method's context is built from. */
export function contextNeeds(method: Method): readonly MethodNeed[] {
  return method.kind === "units" ? method.contextNeeds ?? method.needs : [];
}

/** True when some method of `methods` needs `need`. */
export function someNeeds(methods: readonly Method[], need: MethodNeed): boolean {
  return methods.some((m) => m.needs.includes(need));
}

/**
 * The Jev selection: the longest prefix of `order` (unit ids, best first) whose units, rendered in source order by `build`, give
 * a complete prompt of at most `limit` tokens: the kept units (source order) and that prompt's count.
 */
export function selectRankedUnits(
  counter: TokenCounter,
  units: readonly EvidenceUnit[],
  order: readonly string[],
  build: (kept: EvidenceUnit[]) => ChatMessage[],
  limit: number,
): { kept: EvidenceUnit[]; tokens: number } {
  return rankedFit(units, order, (kept) => countPrompt(counter, build(kept)), limit);
}

/** {@link selectRankedUnits} with the exact count of the kept units' prompt given as `countOf`. */
function rankedFit(
  units: readonly EvidenceUnit[],
  order: readonly string[],
  countOf: (kept: EvidenceUnit[]) => number,
  limit: number,
): { kept: EvidenceUnit[]; tokens: number } {
  const byId = new Map(units.map((u) => [u.id, u]));
  const ranked = order.map((id) => {
    const unit = byId.get(id);
    if (!unit) throw new Error(`ranking names unknown unit ${id}`);
    return unit;
  });
  // Each unit's first place in the ranking: the first k ranked units keep, in source order, the units placed
  // before k (what inSourceOrder of their ids keeps), found without a set of ids per count.
  const first = new Map<string, number>();
  for (let i = order.length - 1; i >= 0; i--) first.set(order[i], i);
  const places = units.map((u) => first.get(u.id) ?? order.length);
  const keptOf = (k: number) => bySourcePosition(units.filter((_, i) => places[i] < k));
  const fit = fitCountInOrder(ranked, (chosen) => countOf(keptOf(chosen.length)), limit);
  return { kept: keptOf(fit.chosen.length), tokens: fit.tokens };
}
