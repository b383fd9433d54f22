/**
 * `sweep-answer`: the answer stage hotpot and sweep share (`src/suites/answer_stage.ts`) under the sweep's name.
 *
 * @module
 */
import { answerStageDef } from "../../answer_stage.ts";

/** The `sweep-answer` stage. */
export const sweepAnswerStage = answerStageDef("sweep-answer");
