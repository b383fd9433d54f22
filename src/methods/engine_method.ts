/**
 * Context engines as methods of hotpot and sweep (`--method [NAME=]SPEC`): an engine compacts the public chat
 * history to the budget left once the question, its framing and the reserve are counted.
 *
 * @module
 */
import { z } from "zod";
import { assetPath } from "../assets.ts";
import { UsageError } from "../errors.ts";
import { emptyUsage } from "../core/usage.ts";
import { type ChatMessage, ChatMessageSchema } from "../models/messages.ts";
import type { CallRecord } from "../models/types.ts";
import { sha256File } from "../store/hash.ts";
import type { TokenCounter } from "../tokens/types.ts";
import { BUILTIN_ENGINES, type EngineSelection, REAL_COMPETITORS } from "./engines/engine_names.ts";
import { FRAMEWORK_ENGINES } from "./engines/frameworks/framework_engines.ts";
import { type EngineDeps, EngineError, EngineSkipped } from "./engines/engine.ts";
import { splitCommandLine } from "./engines/split_command.ts";
import { toolPairingProblem } from "./engines/tool_groups.ts";
import { declaredMethod, declaredMethodNames, type Method } from "./registry.ts";

/** True when the engine `spec` names calls no model (one generation suffices). */
function modelFree(spec: string): boolean {
  return spec === "truncate" || FRAMEWORK_ENGINES[spec]?.needsChat === false ||
    declaredMethod(spec)?.needs.length === 0;
}

function knownEngineSpec(spec: string): boolean {
  return /^(exec:|exec\+tools:|http:|https:\/\/)/.test(spec) || Object.hasOwn(REAL_COMPETITORS, spec) ||
    Object.hasOwn(FRAMEWORK_ENGINES, spec) || (BUILTIN_ENGINES as readonly string[]).includes(spec) ||
    declaredMethod(spec) !== undefined;
}

/**
 * The methods `--method`/`--methods` selections name (a name given twice is refused): a declared method the
 * suite runs over its own units (`declared`), else an engine method.
 */
export function resolveMethods(
  selections: readonly EngineSelection[],
  option: string,
  declared: (name: string) => boolean,
): Method[] {
  const methods: Method[] = [];
  for (const { name, spec } of selections) {
    let method: Method | undefined = declaredMethod(spec);
    if (method && declared(method.name)) {
      if (name !== spec) throw new UsageError(`${option} ${name}=${spec}: the method ${spec} keeps its name`);
    } else if (knownEngineSpec(spec)) {
      method = { kind: "engine", name, spec, needs: [], ceilingBinds: true, deterministic: modelFree(spec) };
    } else {
      const known = new Set([...BUILTIN_ENGINES, ...declaredMethodNames(), ...Object.keys(REAL_COMPETITORS)]);
      throw new UsageError(
        `${option} ${JSON.stringify(spec)}: unknown method (expected a method or an engine: ${
          [...known, ...Object.keys(FRAMEWORK_ENGINES)].join(", ")
        }, exec:COMMAND, http:URL, or NAME=SPEC)`,
      );
    }
    if (methods.some((m) => m.name === method.name)) {
      throw new UsageError(`${option} ${name}: the method ${method.name} is named twice`);
    }
    methods.push(method);
  }
  return methods;
}

/** The SHA-256 of every adapter file an engine runs: a competitor's script, each `exec:` word naming a file. */
export async function adapterHashes(spec: string): Promise<Record<string, string>> {
  const files: string[] = [];
  if (Object.hasOwn(REAL_COMPETITORS, spec)) files.push(assetPath(REAL_COMPETITORS[spec].script));
  const command = /^exec(\+tools)?:/.test(spec) ? spec.slice(spec.indexOf(":") + 1) : undefined;
  if (command !== undefined) {
    for (const word of splitCommandLine(command)) {
      try {
        if ((await Deno.stat(word)).isFile) files.push(word);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied)) {
          throw error;
        }
      }
    }
  }
  const hashes: Record<string, string> = {};
  for (const file of files) hashes[file] = await sha256File(file);
  return hashes;
}

/** The public history an engine compacts: the trajectory without a trailing final answer. */
export function publicHistory(trajectory: readonly ChatMessage[]): ChatMessage[] {
  const last = trajectory.at(-1);
  const finalAnswer = last?.role === "assistant" && !(last.tool_calls?.length);
  return structuredClone(finalAnswer ? trajectory.slice(0, -1) : [...trajectory]);
}

/** A stored engine window: the compacted history (null when the engine failed), with the node key. */
export const StoredWindowSchema = z.object({
  node: z.string(),
  ok: z.boolean(),
  messages: z.array(ChatMessageSchema).nullable(),
  reason: z.string().nullable(),
  usage: z.object({ calls: z.number(), input_tokens: z.number(), output_tokens: z.number() }),
});
type StoredWindow = z.infer<typeof StoredWindowSchema>;

/** The parameters every suite's engine stage keys on, in this order (after the suite's method name). */
export const ENGINE_STAGE_PARAMS = {
  engine: z.string(),
  /** Adapter file → SHA-256, so that a changed adapter changes the key. */
  adapters: z.record(z.string(), z.string()),
  generation: z.number().int(),
  input_cap: z.number().int(),
  reserve: z.number().int(),
  tokenizer: z.string(),
};

/** The output every suite's engine stage declares: the stored window. */
export const ENGINE_WINDOW_OUTPUT = {
  schema: StoredWindowSchema,
  doc: "the compacted history (null when the engine failed), the node key",
};

/** Default time limit of one outside engine call in a suite's engine stage (as `engines run`). */
const ENGINE_STAGE_TIMEOUT_MS = 60_000;

/** What a suite's engine stage body gives the pipeline: the window, the exchanges, and why it is invalid. */
interface EngineStageOutcome {
  outputs: { window: StoredWindow };
  requests: CallRecord[];
  status?: "invalid";
  reason?: string;
}

/**
 * The body every suite's engine stage shares: builds the engine `spec` names (shown as `name`), compacts
 * `history` toward `budget` once and checks its output (well-formed messages, intact tool pairs). A skip or an
 * engine failure is a window with `ok: false` and the reason: the node is invalid.
 */
export async function runEngineStage(
  spec: string,
  name: string,
  env: Pick<EngineDeps, "chat" | "decision" | "endpoint">,
  history: readonly ChatMessage[],
  budget: number,
  counter: TokenCounter,
  key: string,
): Promise<EngineStageOutcome> {
  // Imported here: a run whose methods name no engine never loads the engines' modules.
  const { createEngine } = await import("./engines/create.ts");
  const engine = createEngine(spec, {
    chat: env.chat,
    decision: env.decision,
    timeoutMs: ENGINE_STAGE_TIMEOUT_MS,
    endpoint: env.endpoint,
  }, name);
  const input = structuredClone([...history]);
  const usage = emptyUsage();
  const fail = (reason: string, records: CallRecord[] = []): EngineStageOutcome => ({
    outputs: {
      window: { node: key, ok: false, messages: null, reason, usage: { ...usage, calls: records.length } },
    },
    requests: records,
    status: "invalid",
    reason,
  });
  try {
    const out = await engine.compress(input, {
      budgetTokens: budget,
      currentTokens: counter.countMessages(input),
      counter,
    });
    // Hotpot and sweep judge the window alone: recall tools an engine offers are closed at once.
    await out.recall?.close();
    const records = out.records ?? [];
    Object.assign(usage, out.usage ?? {});
    const parsed = z.array(ChatMessageSchema).safeParse(out.messages);
    if (!parsed.success || parsed.data.length === 0) {
      return fail(`engine ${engine.name}: malformed output`, records);
    }
    const problem = toolPairingProblem(parsed.data);
    if (problem !== null) return fail(`engine ${engine.name}: broken tool pairing: ${problem}`, records);
    return {
      outputs: { window: { node: key, ok: true, messages: parsed.data, reason: null, usage } },
      requests: records,
    };
  } catch (error) {
    if (error instanceof EngineSkipped) return fail(`engine ${engine.name} skipped: ${error.message}`);
    if (error instanceof EngineError) return fail(error.message, error.records);
    throw error;
  } finally {
    // An outside engine's worker lives for this one call here.
    await engine.close?.();
  }
}
