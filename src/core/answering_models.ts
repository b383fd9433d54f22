/**
 * Which models answered a run's calls, per role, beside the names asked for (a provider may answer as another).
 * @module
 */
import { z } from "zod";
import type { CallRecord } from "./call_record.ts";

export const MODEL_ROLES = ["chat", "decision", "summarizer"] as const;

/** One of {@link MODEL_ROLES}: `chat` answers, `decision` ranks (Jev), `summarizer` compresses. */
export type ModelRole = typeof MODEL_ROLES[number];

/** Answering model name → calls it answered. */
export type ModelCalls = Record<string, number>;

/** One role's models: the name asked for and the models that answered (name → calls). */
const RoleModelsSchema = z.object({
  requested: z.string(),
  answered: z.record(z.string(), z.number().int().nonnegative()),
});

/** Per role (only the roles that made calls or were asked): requested and answering models. */
export const AnsweringModelsSchema = z.object({
  chat: RoleModelsSchema.optional(),
  decision: RoleModelsSchema.optional(),
  summarizer: RoleModelsSchema.optional(),
});
/** Per role: requested and answering models. */
export type AnsweringModels = z.infer<typeof AnsweringModelsSchema>;

/** The answering models of a node's call records (name → calls; records without a model are not counted). */
export function modelsOfRecords(records: readonly Pick<CallRecord, "model">[]): ModelCalls {
  const calls: ModelCalls = {};
  for (const record of records) {
    if (typeof record.model === "string") calls[record.model] = (calls[record.model] ?? 0) + 1;
  }
  return calls;
}

/** Adds `more` into `into` (name by name). */
export function addModelCalls(into: ModelCalls, more: Readonly<ModelCalls>): ModelCalls {
  for (const [name, calls] of Object.entries(more)) into[name] = (into[name] ?? 0) + calls;
  return into;
}

/** Answering models per group (a method, an engine) and role; {@link of} gives one group's models. */
export class ModelTally {
  readonly #groups = new Map<string, Map<ModelRole, ModelCalls>>();

  add(group: string, role: ModelRole, calls: Readonly<ModelCalls>): void {
    const roles = this.#groups.get(group) ?? new Map<ModelRole, ModelCalls>();
    this.#groups.set(group, roles);
    addModelCalls(roles.get(role) ?? roles.set(role, {}).get(role)!, calls);
  }

  /** The models of `group` for `roles` and any other role that made calls, each with its requested name. */
  of(
    group: string,
    requested: Readonly<Record<ModelRole, string>>,
    roles: readonly ModelRole[],
  ): AnsweringModels {
    const out: AnsweringModels = {};
    const called = this.#groups.get(group) ?? new Map<ModelRole, ModelCalls>();
    for (const role of MODEL_ROLES) {
      if (!roles.includes(role) && Object.keys(called.get(role) ?? {}).length === 0) continue;
      out[role] = { requested: requested[role], answered: { ...(called.get(role) ?? {}) } };
    }
    return out;
  }
}

/** The requested name of each role, from a run's model description. */
export function requestedModels(description: { chat_model: string; decision_model: string }) {
  return {
    chat: description.chat_model,
    decision: description.decision_model,
    summarizer: description.chat_model,
  } as const satisfies Record<ModelRole, string>;
}

/** Every group's models merged per role (calls added; requested names from the first group naming the role). */
export function mergeAnsweringModels(groups: readonly (AnsweringModels | undefined)[]): AnsweringModels {
  const out: AnsweringModels = {};
  for (const group of groups) {
    for (const role of MODEL_ROLES) {
      const models = group?.[role];
      if (!models) continue;
      const merged = out[role] ??= { requested: models.requested, answered: {} };
      addModelCalls(merged.answered, models.answered);
    }
  }
  return out;
}

/** The answering model names of `calls`, sorted by code units. */
export function answeredNames(calls: Readonly<ModelCalls>): string[] {
  return Object.keys(calls).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The run's models per role as a report states them: `` chat `qwen3.8-max` (answered by `served-1`) ``. */
export function modelsFact(
  requested: { chat_model: string; decision_model: string },
  models: AnsweringModels,
  code: (name: string) => string,
): string {
  const roles = MODEL_ROLES.filter((role) => role !== "summarizer" || models.summarizer !== undefined);
  return roles.map((role) => {
    const asked = role === "decision" ? requested.decision_model : requested.chat_model;
    const names = answeredNames(models[role]?.answered ?? {});
    const answered = models[role] === undefined
      ? ""
      : names.length === 0
      ? " (no call answered)"
      : ` (answered by ${names.map(code).join(", ")})`;
    return `${role} ${code(asked)}${answered}`;
  }).join(", ");
}

/** The first-screen notice of a run whose answering model changed mid-run (names only), or null. */
export function modelChangeNotice(models: AnsweringModels): string | null {
  const roles = MODEL_ROLES.filter((role) => Object.keys(models[role]?.answered ?? {}).length > 1);
  if (roles.length === 0) return null;
  return `The answering model changed mid-run: ${
    roles.map((role) => `${role} answered as ${answeredNames(models[role]!.answered).join(", ")}`).join("; ")
  } under one requested name. The results mix models.`;
}
