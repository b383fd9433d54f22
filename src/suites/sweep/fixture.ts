/**
 * Loading the sweep trajectory: read, validate, hash, and look up its oracle. A file whose hash matches no
 * known oracle is refused, because its facts and repair checks would be unknown.
 *
 * @module
 */
import { z } from "zod";
import { assetPath } from "../../assets.ts";
import { UsageError } from "../../errors.ts";
import { readInputFile } from "../../fs_input.ts";
import { type ChatMessage, ChatMessageSchema } from "../../models/messages.ts";
import { DEFAULT_SWEEP_TRAJECTORY, type Fact, type RepairSpec, SWEEP_ORACLES } from "./oracle.ts";
import { type EvidenceUnit, splitUnits } from "./units.ts";

/** A trajectory file: a JSON array of chat messages. */
export const TrajectorySchema: z.ZodType<ChatMessage[]> = z.array(ChatMessageSchema).min(1);

/** A loaded sweep fixture: the trajectory, its hash and everything its oracle says about it. */
export interface SweepFixture {
  /** The file that was read. */
  path: string;
  /** Short name of the fixture's oracle. */
  name: string;
  /** The investigation, as the agent left it (system prompt, task, tool calls and results). */
  trajectory: ChatMessage[];
  /** SHA-256 (hex) of the file's bytes. */
  hash: string;
  units: EvidenceUnit[];
  facts: Fact[];
  followUp: string;
  /** The exact signature the follow-up asks the repair to have. */
  repairSignature: string;
  repair: RepairSpec;
}

/** SHA-256 of some bytes, as lowercase hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads and validates a sweep trajectory (default: the shipped fixture) and attaches its oracle.
 * Throws {@link UsageError} naming the file when it cannot be read, is not a JSON array of chat messages
 * (naming the first bad field), or its hash matches no known oracle.
 */
export async function loadSweepFixture(
  path: string = assetPath(DEFAULT_SWEEP_TRAJECTORY),
): Promise<SweepFixture> {
  const bytes = await readInputFile(path, "--trajectory");
  return await sweepFixtureFromBytes(bytes, path);
}

/** A sweep fixture from the bytes of its trajectory file (`path` names it in errors); see {@link loadSweepFixture}. */
export async function sweepFixtureFromBytes(bytes: Uint8Array, path: string): Promise<SweepFixture> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) {
      throw new UsageError(`trajectory ${path}: not valid UTF-8 JSON (${error.message})`, { cause: error });
    }
    throw error;
  }
  const parsed = TrajectorySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? `message ${issue.path.join(".")}` : "top level";
    throw new UsageError(`trajectory ${path}: ${where}: ${issue.message}`);
  }
  const hash = await sha256Hex(bytes);
  const oracle = SWEEP_ORACLES.get(hash);
  if (!oracle) {
    throw new UsageError(
      `trajectory ${path}: sha256 ${hash} matches no known sweep fixture; its facts and repair checks are ` +
        `unknown, so it cannot be scored (known: ${[...SWEEP_ORACLES.keys()].join(", ")})`,
    );
  }
  return {
    path,
    name: oracle.name,
    trajectory: parsed.data,
    hash,
    units: splitUnits(parsed.data, oracle.units),
    facts: oracle.facts,
    followUp: oracle.followUp,
    repairSignature: oracle.repair.signature,
    repair: oracle.repair,
  };
}

/** A compact, JSON-ready description of a loaded fixture (for protocol.json and reports). */
export function sweepFixtureSummary(fixture: SweepFixture): {
  name: string;
  hash: string;
  messages: number;
  units: { id: string; message_index: number; tool_call_id: string; chars: number }[];
  facts: { name: string; text: string; unit: string }[];
  repair_signature: string;
} {
  return {
    name: fixture.name,
    hash: fixture.hash,
    messages: fixture.trajectory.length,
    units: fixture.units.map((unit) => ({
      id: unit.id,
      message_index: unit.message_index,
      tool_call_id: unit.tool_call_id,
      chars: unit.end - unit.start,
    })),
    facts: fixture.facts.map((fact) => ({ ...fact })),
    repair_signature: fixture.repairSignature,
  };
}
