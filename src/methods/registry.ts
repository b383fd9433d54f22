/**
 * The one method registry every suite uses. A method is one declaration: its name, what it needs (a ranking
 * from the decision model, a summary from the chat model, or nothing), whether the answer-input ceiling binds
 * it, its parameters (defaults a suite may override, recorded in the suite's protocol.json), and how it builds
 * the evidence part of a context from a trajectory's evidence units within a token budget.
 *
 * The suites supply the frame ({@link EvidenceFrame}: their units, how a complete answer input is rendered from
 * kept units and a summary, and the token limit) and store the artifacts (rankings, summaries) as nodes; a
 * method never sees gold labels. Every context engine `engines run` knows is a method too ({@link EngineMethod}:
 * it compacts the public chat history itself; see engine_method.ts).
 *
 * - `full`: the uncompressed history (the ceiling does not bind it; its size is recorded).
 * - `jev`: whole units in the ranking's order while the complete input fits, rendered in source order.
 * - `summary`: a summary of all evidence in the space left.
 * - `jev+summary`: ranked units within `fusion_share` (the seed's 40%) of the evidence space, then a summary of
 *   the rest in all the space left; the summarizer sees the retained units.
 * - `summary+top`: the same summary as `summary` plus the first `n` ranked units (the sweep's `S + Top N`).
 *
 * A new method is one {@link MethodDeclaration} passed to {@link registerMethod} (tests/methods_registry.test.ts
 * declares one in its own file and runs it through hotpot and sweep).
 *
 * @module
 */
import type { ChatMessage } from "../models/messages.ts";
import { countPrompt, fitUnitsInOrder } from "../tokens/budget.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { type EvidenceUnit, inSourceOrder } from "./evidence_unit.ts";
import { selectRankedUnits } from "./jev_select.ts";

/** A compression artifact a method needs, frozen per generation before any answer. */
export type MethodNeed = "ranking" | "summary";

/**
 * What a suite gives a method: its evidence units and how a complete answer input is rendered. A frame that
 * is frozen (`Object.freeze`) promises that its units, render and limit never change, so what a method
 * computes from it is kept ({@link frameMemo}): a suite that hands the same frozen frame to the generations
 * and stages of one question (hotpot's `hotpotFrame`) has each selection made once.
 */
export interface EvidenceFrame {
  readonly counter: TokenCounter;
  /** The evidence units, in source order. */
  readonly units: readonly EvidenceUnit[];
  /** The complete answer input from kept units (source order) and a summary (empty: none). */
  render(kept: readonly EvidenceUnit[], summary: string): ChatMessage[];
  /** Tokens the complete answer input may take (the ceiling minus the reserve). */
  readonly limit: number;
}

/** The frozen artifacts of one generation a method builds from. */
export interface MethodArtifacts {
  /** Unit ids by descending probability (when the method needs a ranking). */
  order?: readonly string[];
  /** The summary and the units kept verbatim beside it (when the method needs a summary). */
  summary?: { text: string; kept: readonly string[] };
}

/** The evidence part of a context: units kept verbatim (source order) and a summary (empty: none). */
export interface Evidence {
  kept: EvidenceUnit[];
  summary: string;
  /**
   * The exact token count of the complete answer input `frame.render(kept, summary)`, where the method
   * counted that very input already (Jev's fit); absent: not counted.
   */
  tokens?: number;
}

/** A method's parameters (numbers only, so that they canonicalise and compare simply). */
export type MethodParams = Readonly<Record<string, number>>;

/** One method over evidence units. */
export interface MethodDeclaration {
  readonly kind: "units";
  readonly name: string;
  readonly needs: readonly MethodNeed[];
  /**
   * The artifacts {@link MethodDeclaration.evidence} reads (default: all it needs); e.g. the fusion's ranking
   * only chooses what its summary keeps, so its context is built from the summary alone.
   */
  readonly contextNeeds?: readonly MethodNeed[];
  /**
   * The methods this one combines (Jev+Summary: Jev and Summary): a report pairs each with it, and every
   * other compressed method too.
   */
  readonly parts?: readonly string[];
  /** False only for `full`, whose size is recorded, never limited. */
  readonly ceilingBinds: boolean;
  /**
   * Parameter defaults; a suite's run sets a parameter it has an option of the same name for (hotpot's
   * `--fusion-share` sets every method's `fusion_share`: {@link suiteSetParams}) and records what it used.
   */
  readonly params: MethodParams;
  /**
   * The units kept verbatim beside the summary, chosen before summarizing (the summarizer sees the others).
   * Only for methods that need a summary; absent: none kept.
   */
  retain?(frame: EvidenceFrame, order: readonly string[] | undefined, params: MethodParams): EvidenceUnit[];
  /** The evidence part of the context, or null for the whole uncompressed history. */
  evidence(frame: EvidenceFrame, artifacts: MethodArtifacts, params: MethodParams): Evidence | null;
}

/** A context engine as a method: it compacts the public chat history itself, to the budget it is given. */
export interface EngineMethod {
  readonly kind: "engine";
  readonly name: string;
  /** The engine spec (`truncate`, `hermes`, `exec:…`, `http:…`). */
  readonly spec: string;
  readonly needs: readonly MethodNeed[];
  readonly ceilingBinds: true;
  /** True when the engine calls no model and is a pure function of its input: one generation suffices. */
  readonly deterministic: boolean;
}

/**
 * A method's parameters as a suite's run sets them: each declared parameter takes the run's value of the same
 * name where the run has one, else its default. No method is named: the declaration says what it takes.
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
  return Object.fromEntries(
    Object.entries(method.params).map((
      [name, value],
    ) => [name, Object.hasOwn(set, name) ? set[name] : value]),
  );
}

/** Any method a suite can run. */
export type Method = MethodDeclaration | EngineMethod;

/** What methods computed from frozen frames, per frame, by what it was computed from. */
const frameMemos = new WeakMap<EvidenceFrame, Map<string, unknown>>();

/**
 * `compute()`, kept for a frozen frame under `key` (which must name everything besides the frame that the
 * result depends on): a frozen frame's units, render and limit never change and counts are exact, so the
 * result computed again would be the same. A frame that is not frozen is computed each time.
 */
export function frameMemo<T>(frame: EvidenceFrame, key: string, compute: () => T): T {
  if (!Object.isFrozen(frame)) return compute();
  let memo = frameMemos.get(frame);
  if (memo === undefined) frameMemos.set(frame, memo = new Map());
  if (memo.has(key)) return memo.get(key) as T;
  const value = compute();
  memo.set(key, value);
  return value;
}

function units(frame: EvidenceFrame, ids: readonly string[]): EvidenceUnit[] {
  return inSourceOrder(frame.units, ids);
}

const summaryEvidence = (frame: EvidenceFrame, artifacts: MethodArtifacts): Evidence => {
  if (!artifacts.summary) throw new Error("this method needs a summary");
  return { kept: units(frame, artifacts.summary.kept), summary: artifacts.summary.text };
};

/** The fusion's retained units: ranked whole units within `share` of the evidence space, in source order. */
export function fusionRetained(
  frame: EvidenceFrame,
  order: readonly string[],
  share: number,
): EvidenceUnit[] {
  const retained = frameMemo(
    frame,
    `fusion ${share} ${JSON.stringify(order)}`,
    () => fitFusion(frame, order, share),
  );
  return [...retained];
}

function fitFusion(frame: EvidenceFrame, order: readonly string[], share: number): readonly EvidenceUnit[] {
  const { counter } = frame;
  const byId = new Map(frame.units.map((u) => [u.id, u]));
  const ranked = order.map((id) => byId.get(id)!).filter(Boolean);
  const empty = countPrompt(counter, frame.render([], ""));
  const allowance = empty + Math.floor(share * (frame.limit - empty));
  const fit = fitUnitsInOrder(
    counter,
    ranked,
    (chosen) => frame.render([...chosen].sort((a, b) => a.position - b.position), ""),
    allowance,
  );
  return [...fit.chosen].sort((a, b) => a.position - b.position);
}

const BUILT_IN: MethodDeclaration[] = [
  { kind: "units", name: "full", needs: [], ceilingBinds: false, params: {}, evidence: () => null },
  {
    kind: "units",
    name: "jev",
    needs: ["ranking"],
    ceilingBinds: true,
    params: {},
    evidence(frame, artifacts) {
      const order = artifacts.order;
      if (!order) throw new Error("jev needs a ranking");
      const { kept, tokens } = frameMemo(
        frame,
        `jev ${JSON.stringify(order)}`,
        () =>
          selectRankedUnits(
            frame.counter,
            frame.units,
            order,
            (chosen) => frame.render(chosen, ""),
            frame.limit,
          ),
      );
      // `tokens` counts the prompt of these very units: selectRankedUnits renders kept units in source order.
      return { kept: [...kept], summary: "", tokens };
    },
  },
  {
    kind: "units",
    name: "summary",
    needs: ["summary"],
    ceilingBinds: true,
    params: {},
    retain: () => [],
    evidence: summaryEvidence,
  },
  {
    kind: "units",
    name: "jev+summary",
    needs: ["ranking", "summary"],
    parts: ["jev", "summary"],
    contextNeeds: ["summary"],
    ceilingBinds: true,
    // The seed's split: ranked units within 40% of the evidence space, the summary in all the space left.
    params: { fusion_share: 0.4 },
    retain(frame, order, params) {
      if (!order) throw new Error("jev+summary needs a ranking");
      return fusionRetained(frame, order, params.fusion_share ?? 0);
    },
    evidence: summaryEvidence,
  },
  {
    kind: "units",
    name: "summary+top",
    needs: ["ranking", "summary"],
    ceilingBinds: true,
    params: { n: 1 },
    // The summary is of all evidence (the same S as `summary`); the top units are added beside it.
    retain: () => [],
    evidence(frame, artifacts, params) {
      if (!artifacts.order || !artifacts.summary) {
        throw new Error("summary+top needs a ranking and a summary");
      }
      const top = artifacts.order.slice(0, params.n ?? 0);
      return { kept: units(frame, top), summary: artifacts.summary.text };
    },
  },
];

const REGISTRY = new Map<string, MethodDeclaration>(BUILT_IN.map((m) => [m.name, m]));

/** The methods a hotpot run measures by default, in report order. */
export const DEFAULT_UNIT_METHODS = ["full", "jev", "summary", "jev+summary"] as const;

/**
 * Adds a method to the registry (its name must be new); returns it. Every suite then runs it by `--method NAME`.
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

/** A declared method's parameters: its defaults, overridden by what a suite sets. */
export function methodParams(method: MethodDeclaration, overrides: MethodParams = {}): MethodParams {
  const params: Record<string, number> = { ...method.params };
  for (const [name, value] of Object.entries(overrides)) if (name in params) params[name] = value;
  return params;
}

/** The artifacts a method's context is built from. */
export function contextNeeds(method: Method): readonly MethodNeed[] {
  return method.kind === "units" ? method.contextNeeds ?? method.needs : [];
}

/** True when some method of `methods` needs `need`. */
export function someNeeds(methods: readonly Method[], need: MethodNeed): boolean {
  return methods.some((m) => m.needs.includes(need));
}
