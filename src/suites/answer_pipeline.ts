/**
 * The answer pipeline's stages that hotpot and sweep share: a suite declares its own (name, docs, the field
 * that names a row's method) and gets the stage. The names, versions and params stay the suites' own, so
 * existing runs' node keys do not change.
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../pipeline/stage.ts";
import type { ChatMessage } from "../models/messages.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { ENGINE_STAGE_PARAMS, ENGINE_WINDOW_OUTPUT, runEngineStage } from "../methods/engine_method.ts";
import { publishedJson } from "./published.ts";
import { ceilingOf } from "./ceiling_inputs.ts";

/** How a suite declares its `*-ceilings` stage. */
export interface CeilingsDecl<F extends string> {
  /** The stage name (`hotpot-ceilings`, `sweep-ceilings`). */
  name: string;
  /** The stage's one line for the catalogue. */
  doc: string;
  /** The row and aggregate field that names the method (`method`, `kind`); its value `full` is Full. */
  field: F;
  /** The catalogue doc of the published `aggregate.json`. */
  aggregateDoc: string;
}

type Keyed<F extends string> = Record<F, unknown>;

/** Every ceiling's rows, each with its `input_cap` (Full, which no ceiling limits, once with null). */
export function ceilingRows<R extends Keyed<F>, F extends string>(
  field: F,
  inputs: Record<string, unknown>,
  caps: readonly number[],
): (R & { input_cap: number | null })[] {
  return [
    ...ceilingOf<unknown, R>(inputs, caps[0]).rows.filter((r) => r[field] === "full").map((r) => ({
      ...r,
      input_cap: null,
    })),
    ...caps.flatMap((cap) =>
      ceilingOf<unknown, R>(inputs, cap).rows.filter((r) => r[field] !== "full").map((r) => ({
        ...r,
        input_cap: cap,
      }))
    ),
  ];
}

/**
 * A ceiling sweep's published rows and aggregates: `results.json` (Full's rows once with `input_cap` null,
 * then each ceiling's other rows with theirs) and `aggregate.json` (the primary ceiling's aggregates as a
 * single-ceiling run has them, each with its `input_cap`, then the other ceilings' aggregates but Full's).
 *
 * @example
 * ```ts ignore
 * export const sweepCeilingsStage = defineCeilingsStage({
 *   name: "sweep-ceilings", doc: "…", field: "kind", aggregateDoc: "per-kind (and per-ceiling) means",
 * });
 * ```
 */
export function defineCeilingsStage<F extends string>(decl: CeilingsDecl<F>) {
  const { field } = decl;
  return defineStage({
    name: decl.name,
    version: 1,
    doc: decl.doc,
    params: z.object({
      /** The ceilings as given; the first is the primary one. */
      caps: z.array(z.number().int()).min(2),
    }),
    inputs: ["ceiling-aggregate:*", "ceiling-results:*"],
    textInputs: ["ceiling-aggregate:*", "ceiling-results:*"],
    outputs: {
      "results.json": {
        schema: z.string(),
        kind: "text",
        doc: "every answer row with its input_cap, published as results.json",
      },
      "aggregate.json": { schema: z.string(), kind: "text", doc: decl.aggregateDoc },
    },
    provider: false,
    run({ params, inputs }) {
      const [primary, ...others] = params.caps;
      const of = (cap: number) => ceilingOf<Keyed<F>, Keyed<F>>(inputs, cap).aggregates;
      const aggregates = [
        ...of(primary).map((a) => ({ ...a, input_cap: a[field] === "full" ? null : primary })),
        ...others.flatMap((cap) =>
          of(cap).filter((a) => a[field] !== "full").map((a) => ({ ...a, input_cap: cap }))
        ),
      ];
      return Promise.resolve({
        outputs: {
          "results.json": publishedJson(ceilingRows(field, inputs, params.caps)),
          "aggregate.json": publishedJson(aggregates),
        },
      });
    },
  });
}

/** The params every suite's `*-engine` stage has besides the method's name and the suite's own. */
const EngineCommon = z.object({ ...ENGINE_STAGE_PARAMS, chat_model: z.string(), decision_model: z.string() });

/** What a suite's engine stage body needs: the counter and what `runEngineStage` needs. */
export type EngineStageEnv = Parameters<typeof runEngineStage>[2] & { counter: TokenCounter };

/** How a suite declares its `*-engine` stage. */
export interface EngineStageDecl<S extends z.ZodRawShape, E extends EngineStageEnv> {
  /** The stage name (`hotpot-engine`, `sweep-engine`). */
  name: string;
  /** The stage version (default 1). */
  version?: number;
  /** The stage's one line for the catalogue. */
  doc: string;
  /** The param naming the method (`method`, `kind`), first in the params. */
  name_param: string;
  /** The suite's own params (sweep: its fixture's hash), before the models'. */
  params: S;
  inputs: readonly string[];
  /**
   * The public history the engine compacts and the evidence space every method of the run has (the ceiling
   * less the reserve, the head, the framing and the question); or why the unit is invalid.
   */
  history(
    params: z.infer<typeof EngineCommon> & z.infer<z.ZodObject<S>>,
    inputs: Record<string, unknown>,
    env: E,
  ): { messages: ChatMessage[]; budget: number; name: string } | { invalid: string };
}

/**
 * A context engine used as a suite's method: it compacts the unit's public history to the evidence space
 * every method has, frozen per generation before any answer (a `--frozen-run` reuses it by key, which holds
 * the engine's spec and its adapter files' hashes). The context stage appends the question and checks the
 * complete input against the ceiling.
 */
export function defineEngineStage<S extends z.ZodRawShape, E extends EngineStageEnv>(
  decl: EngineStageDecl<S, E>,
) {
  // In the declared order of the stage catalogue: the method's name, the engine's, the suite's, the models.
  const Params = z.object({
    [decl.name_param]: z.string(),
    ...ENGINE_STAGE_PARAMS,
    ...decl.params,
    chat_model: z.string(),
    decision_model: z.string(),
  }) as unknown as ReturnType<typeof EngineCommon.extend<S>>;
  return defineStage({
    name: decl.name,
    version: decl.version ?? 1,
    doc: decl.doc,
    params: Params,
    inputs: decl.inputs,
    outputs: { window: ENGINE_WINDOW_OUTPUT },
    provider: true,
    async run({ params, inputs, key, env }: {
      params: z.infer<typeof Params>;
      inputs: Record<string, unknown>;
      key: string;
      env: E;
    }) {
      const own = params as z.infer<typeof EngineCommon> & z.infer<z.ZodObject<S>>;
      const plan = decl.history(own, inputs, env);
      if ("invalid" in plan) {
        const usage = { calls: 0, input_tokens: 0, output_tokens: 0 };
        const window = { node: key, ok: false, messages: null, reason: plan.invalid, usage };
        return { outputs: { window }, status: "invalid" as const, reason: plan.invalid };
      }
      return await runEngineStage(
        own.engine,
        plan.name,
        env,
        plan.messages,
        plan.budget,
        env.counter,
        key,
      );
    },
  });
}
