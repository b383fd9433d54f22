/**
 * The messages between the demo and its second lane (a worker, see demo_lane.ts).
 * @module
 */
import { z } from "zod";

export const LaneRequestSchema = z.object({ root: z.string() });

/** What the lane sends back: its lines, exit code, each run's verification and the error that stopped it. */
export const LaneReplySchema = z.object({
  lines: z.array(z.string()),
  code: z.number().int(),
  verified: z.array(z.object({ run: z.string(), ok: z.boolean(), text: z.string() })),
  error: z.object({ usage: z.boolean(), message: z.string() }).optional(),
});
export type LaneReply = z.infer<typeof LaneReplySchema>;
