/**
 * `hotpot-answer`: one chat completion of a question's rendered answer input: the answer stage both
 * gold-scored suites share (`src/suites/answer_stage.ts`) under hotpot's name.
 *
 * @module
 */
import { answerStageDef } from "../../../answer_stage.ts";

/** The `hotpot-answer` stage. */
export const hotpotAnswerStage = answerStageDef("hotpot-answer");
