/**
 * Needles: the facts a generated transcript plants and an engines run checks after compaction. (Probes,
 * the questions of imported transcripts, are defined with the importers.)
 *
 * @module
 */

export { type Needle, type NeedlePosition, NeedleSchema } from "../../data/transcripts/needle.ts";
export type { Probe } from "../../data/transcripts/types.ts";
