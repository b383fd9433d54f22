/**
 * The run's requested and answering models as report.html states them.
 * @module
 */
import { type AnsweringModels, modelsFact } from "../core/answering_models.ts";
import { code, type Html, rawHtml } from "./html.ts";

/** `chat <code>asked</code> (answered by <code>…</code>), …`: every name escaped. */
export function modelsFactHtml(
  requested: { chat_model: string; decision_model: string },
  models: AnsweringModels,
): Html {
  return rawHtml(modelsFact(requested, models, (name) => code(name).markup));
}
