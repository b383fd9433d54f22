/**
 * Reader of the probe files of Hermes Agent's compression eval (`{"fixture", "probes": […]}`).
 * @module
 */
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import { issueError, parseJsonText, type Probe } from "./types.ts";
import { INPUT_MAX_BYTES, readInputText } from "../../fs_input.ts";

const MAX_PROBES = 10_000;

const HermesProbeSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.string().min(1).max(200),
  question: z.string().min(1).max(20_000),
  expected_facts: z.array(z.string().min(1).max(20_000)).min(1).max(100),
});

/** A probe file of Hermes' compression eval (other top-level fields are ignored). */
export const HermesProbeFileSchema = z.object({
  fixture: z.string().optional(),
  description: z.string().optional(),
  probes: z.array(HermesProbeSchema).min(1).max(MAX_PROBES),
});

/** Reads and validates a probe file; problems are a {@link UsageError} naming the file and field. */
export async function readHermesProbes(path: string): Promise<Probe[]> {
  return parseHermesProbes(await readInputText(path, "--probes", INPUT_MAX_BYTES.probes), path);
}

/** The probes of a probe file's text (`path` names it in errors). */
export function parseHermesProbes(text: string, path: string): Probe[] {
  const json = parseJsonText(text, path);
  const parsed = HermesProbeFileSchema.safeParse(json);
  if (!parsed.success) throw issueError(path, "", parsed.error);
  const ids = new Set<string>();
  for (const probe of parsed.data.probes) {
    if (ids.has(probe.id)) throw new UsageError(`${path}: probes: duplicate probe id '${probe.id}'`);
    ids.add(probe.id);
  }
  return parsed.data.probes.map((probe) => ({
    id: probe.id,
    question: probe.question,
    answer: probe.expected_facts.join("; "),
    facts: probe.expected_facts,
    evidence: [],
    category: probe.type,
  }));
}
