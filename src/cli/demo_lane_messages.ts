/**
 * The messages between the demo and its second lane (a worker, see demo_lane.ts).
 *
 * @module
 */
import { z } from "zod";

/** What the demo sends the lane. */
export const LaneRequestSchema = z.object({ root: z.string() });

/** What the lane sends back: its printed lines and exit code, and the error that stopped it, if one did. */
export const LaneReplySchema = z.object({
  lines: z.array(z.string()),
  code: z.number().int(),
  error: z.object({ usage: z.boolean(), message: z.string() }).optional(),
});
/** What the lane sends back. */
export type LaneReply = z.infer<typeof LaneReplySchema>;
