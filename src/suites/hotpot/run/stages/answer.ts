/**
 * `hotpot-answer`: the answer stage hotpot and sweep share (`src/suites/answer_stage.ts`) under hotpot's name.
 *
 * @module
 */
import { answerStageDef } from "../../../answer_stage.ts";

/** The `hotpot-answer` stage. */
export const hotpotAnswerStage = answerStageDef("hotpot-answer");
