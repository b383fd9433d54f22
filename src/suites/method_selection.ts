/**
 * The methods a gold-labelled run measures, from `--methods LIST` and `--method [NAME=]SPEC`: declared methods
 * (src/methods/registry.ts) in declaration order, then engine methods in the order given, each engine with its
 * adapter files' hashes (they enter its compression node's key).
 *
 * @module
 */
import { adapterHashes, resolveMethods } from "../methods/engine_method.ts";
import { type EngineSelection, parseEngineSelection } from "../methods/engines/engine_names.ts";
import { declaredMethodNames } from "../methods/registry.ts";

/** An engine method as a run's protocol records it. */
export interface EngineOption {
  name: string;
  spec: string;
  /** Adapter file → SHA-256 (outside engines). */
  adapters: Record<string, string>;
  /** Calls no model: compacted once (one generation). */
  deterministic: boolean;
}

/** What a run measures: every method's name in report order, and the engines among them. */
export interface SelectedMethods {
  methods: string[];
  engines: EngineOption[];
}

/**
 * Resolves `--methods` (names) and `--method` (`[NAME=]SPEC`) values; nothing given: `defaults`. `declared`
 * says which declared methods the suite runs (any other name is read as an engine spec).
 */
export async function selectMethods(
  given: { methods?: readonly string[]; method?: readonly string[] },
  defaults: readonly string[],
  declared: (name: string) => boolean,
): Promise<SelectedMethods> {
  const selections: EngineSelection[] = [
    ...(given.methods ?? []).map((name) => ({ name, spec: name })),
    ...(given.method ?? []).map(parseEngineSelection),
  ];
  if (selections.length === 0) return { methods: [...defaults], engines: [] };
  const option = given.method?.length ? "--method" : "--methods";
  const methods = resolveMethods(selections, option, declared);
  const order = declaredMethodNames();
  const units = methods.filter((m) => m.kind === "units")
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const engines: EngineOption[] = [];
  for (const m of methods) {
    if (m.kind !== "engine") continue;
    engines.push({
      name: m.name,
      spec: m.spec,
      adapters: await adapterHashes(m.spec),
      deterministic: m.deterministic,
    });
  }
  return { methods: [...units.map((m) => m.name), ...engines.map((e) => e.name)], engines };
}

/** The report's sentence on a run's engine methods (which were compacted once, being deterministic). */
export function engineMethodsText(
  engines: readonly Pick<EngineOption, "name" | "spec" | "deterministic">[],
): string {
  return `Engine methods: ${
    engines.map((e) =>
      `${e.name} (${e.spec}; ${
        e.deterministic
          ? "calls no model, so it is deterministic: one generation suffices and is the only one"
          : "compacted afresh in every generation"
      })`
    ).join("; ")
  }. Each compacts the public history to the evidence space under the ceiling; the complete answer input is ` +
    `checked against the ceiling like every method's (an overrun is invalid, never shrunk).`;
}

/** The report params' record of the engine methods (absent when there are none, so keys stay as they were). */
export function engineReportParams(
  engines: readonly EngineOption[] | undefined,
): { engines?: { name: string; spec: string; deterministic: boolean }[] } {
  if (!engines?.length) return {};
  return { engines: engines.map(({ name, spec, deterministic }) => ({ name, spec, deterministic })) };
}
