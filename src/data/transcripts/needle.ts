/**
 * A needle: a unique fact planted in a generated transcript (`engines generate`), with the question that asks
 * for it. Defined with the importers because a transcript file written by `engines generate` carries its
 * needles (`{messages, needles}`), and reading that file back keeps them.
 *
 * @module
 */
import { z } from "zod";

/** Where in a message a needle was placed. */
export type NeedlePosition = "start" | "middle" | "end";

/** A unique fact planted in a generated transcript, with the question that asks for it. */
export const NeedleSchema = z.object({
  id: z.string(),
  /** The full fact sentence as planted (verbatim recall looks for exactly this). */
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
/** A unique fact planted in a generated transcript, with the question that asks for it. */
export type Needle = z.infer<typeof NeedleSchema>;
