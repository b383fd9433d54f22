/**
 * `sweep-answer`: one chat completion of a context's rendered answer input: the answer stage both
 * gold-scored suites share (`src/suites/answer_stage.ts`) under the sweep's name.
 *
 * @module
 */
import { answerStageDef } from "../../answer_stage.ts";

/** The `sweep-answer` stage. */
export const sweepAnswerStage = answerStageDef("sweep-answer");
