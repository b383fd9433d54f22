/**
 * The messages between the demo and its second lane (a worker, see demo_lane.ts).
 *
 * @module
 */
import { z } from "zod";

/** What the demo sends the lane. */
export const LaneRequestSchema = z.object({ root: z.string() });

/**
 * What the lane sends back: its printed lines and exit code, the verification of each run it made (in order),
 * and the error that stopped it, if one did.
 */
export const LaneReplySchema = z.object({
  lines: z.array(z.string()),
  code: z.number().int(),
  verified: z.array(z.object({ run: z.string(), ok: z.boolean(), text: z.string() })),
  error: z.object({ usage: z.boolean(), message: z.string() }).optional(),
});
/** What the lane sends back. */
export type LaneReply = z.infer<typeof LaneReplySchema>;
