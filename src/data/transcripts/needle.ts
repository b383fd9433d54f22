/**
 * A needle: a unique fact planted in a generated transcript, with its question.
 * @module
 */
import { z } from "zod";

/** Where in a message a needle was placed. */
export type NeedlePosition = "start" | "middle" | "end";

/** A unique fact planted in a generated transcript, with the question that asks for it. */
export const NeedleSchema = z.object({
  id: z.string(),
  /** The fact sentence as planted (verbatim recall looks for exactly this). */
  fact: z.string(),
  question: z.string(),
  /** The exact string a correct answer contains. */
  answer: z.string(),
  message_index: z.number().int().nonnegative(),
  /** `message_index / (messages - 1)`: 0 is the first message, 1 the last. */
  depth: z.number().min(0).max(1),
  position: z.enum(["start", "middle", "end"]),
  role: z.enum(["user", "assistant", "tool"]),
});
export type Needle = z.infer<typeof NeedleSchema>;
