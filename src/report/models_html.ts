/**
 * The run's requested and answering models as report.html states them (every suite's page).
 *
 * @module
 */
import { type AnsweringModels, modelsFact } from "../core/answering_models.ts";
import { code, type Html, rawHtml } from "./html.ts";

/** `chat <code>asked</code> (answered by <code>…</code>), …`: every name escaped. */
export function modelsFactHtml(
  requested: { chat_model: string; decision_model: string },
  models: AnsweringModels,
): Html {
  // The words between the names are this program's own; every name goes through code(), which escapes it.
  return rawHtml(modelsFact(requested, models, (name) => code(name).markup));
}
