/**
 * The deterministic transcript generator: SHA-256-derived prose shaped like an agent session (user turns, tool
 * calls and results, replies) with `needles` facts planted at chosen depths, roles and positions. The
 * vocabulary leaves out "is", "deploy", "token" and "shard", so only needle sentences hold them. A transcript's
 * identity is the SHA-256 of its messages' canonical JSON ({@link transcriptHash}).
 * @module
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { UsageError } from "../../errors.ts";
import type { ChatMessage, ToolCall } from "../../models/messages.ts";
import type { Needle, NeedlePosition } from "../../data/transcripts/types.ts";
import canonicalize from "canonicalize";

// Default needles are spread over the early region: the turns a compactor must summarize, not the kept tail.
const EARLY_REGION_START = 0.05;
const EARLY_REGION_END = 0.45;

function defaultNeedleDepths(count: number): number[] {
  const span = EARLY_REGION_END - EARLY_REGION_START;
  return Array.from({ length: count }, (_, i) => EARLY_REGION_START + (span * (i + 0.5)) / count);
}

/** Generator parameters; defaults: 200 turns, 12 needles, 60 words per message, early-region depths. */
export const GenerateParamsSchema = z.object({
  turns: z.number().int().min(1).max(100_000).default(200),
  needles: z.number().int().min(0).max(999).default(12),
  wordsPerMsg: z.number().int().min(1).max(10_000).default(60),
  /** One depth per needle, each in [0, 1]. */
  needleDepths: z.array(z.number().min(0).max(1)).optional(),
  seed: z.string().default("compaction-bench"),
});
/** Generator parameters as given (all optional). */
export type GenerateParamsInput = z.input<typeof GenerateParamsSchema>;

/** A generated transcript. */
export interface GeneratedTranscript {
  params: z.output<typeof GenerateParamsSchema> & { needleDepths: number[] };
  messages: ChatMessage[];
  needles: Needle[];
  /** SHA-256 of the canonical JSON of `messages`. */
  hash: string;
}

const VOCABULARY = (
  "the a of to and in it that for on with as was be by at this from or an are not have has had " +
  "build test check update config module service request response server client cache queue worker " +
  "index table column record field value key node cluster region release branch " +
  "commit patch review merge file path folder script command output error warning log trace metric " +
  "latency memory disk network socket port route handler parser schema type function method class " +
  "object array string number list map set option flag default limit timeout retry backoff batch " +
  "stream buffer chunk page offset cursor filter sort group join query result status state event " +
  "signal process thread task job schedule timer clock date time version migration rollback backup " +
  "restore snapshot volume mount container image registry package library import export compile " +
  "bundle lint format debug profile benchmark measure compare report summary detail note issue bug " +
  "fix feature change rename move copy delete create read write open close start stop restart wait " +
  "load save parse render encode decode hash sign verify allow deny grant revoke user admin role " +
  "team owner project plan goal step next then after before while during because however also " +
  "only still again already maybe likely clearly quickly slowly careful simple small large new old " +
  "first last early late upper lower inner outer local remote public private stable flaky green red " +
  "blue yellow north south east west alpha beta gamma delta kappa sigma omega zero one two three four"
).split(" ");

/** SHA-256 (hex) of the canonical JSON of `messages`. */
export function transcriptHash(messages: ChatMessage[]): string {
  const json = canonicalize(messages);
  if (json === undefined) throw new TypeError("messages cannot be canonicalized");
  return createHash("sha256").update(json).digest("hex");
}

const TOOL_NAMES = ["read_file", "search_files", "run_command", "list_directory"];

/** Deterministic byte source: SHA-256 of `seed|label|block`, block by block. */
class HashStream {
  #bytes: Uint8Array = new Uint8Array(0);
  #at = 0;
  #block = 0;
  constructor(private readonly prefix: string) {}
  next(): number {
    if (this.#at >= this.#bytes.length) {
      this.#bytes = createHash("sha256").update(`${this.prefix}|${this.#block++}`).digest();
      this.#at = 0;
    }
    return this.#bytes[this.#at++];
  }
}

function hexOf(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

function words(stream: HashStream, count: number): string[] {
  const out: string[] = new Array(count);
  for (let i = 0; i < count; i++) out[i] = VOCABULARY[stream.next() % VOCABULARY.length];
  return out;
}

function sentence(stream: HashStream, count: number): string {
  const list = words(stream, count);
  if (list.length > 0) list[0] = list[0][0].toUpperCase() + list[0].slice(1);
  return `${list.join(" ")}.`;
}

/** Inserts `fact` into `text` at the start, after the middle word, or at the end. */
function plant(text: string, fact: string, position: NeedlePosition): string {
  if (position === "start") return `${fact} ${text}`;
  if (position === "end") return `${text} ${fact}`;
  const parts = text.split(" ");
  const middle = Math.floor(parts.length / 2);
  return [...parts.slice(0, middle), fact, ...parts.slice(middle)].join(" ");
}

/** Generates a transcript; invalid parameters are a {@link UsageError} naming the field. */
export function generateTranscript(input: GenerateParamsInput = {}): GeneratedTranscript {
  const parsed = GenerateParamsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`transcript generator: ${issue.path.join(".")}: ${issue.message}`);
  }
  const params = parsed.data;
  const depths = params.needleDepths ?? defaultNeedleDepths(params.needles);
  if (depths.length !== params.needles) {
    throw new UsageError(
      `transcript generator: needleDepths has ${depths.length} values for ${params.needles} needles`,
    );
  }
  const { seed, wordsPerMsg } = params;
  const messages: ChatMessage[] = [];
  const system = new HashStream(`${seed}|system`);
  messages.push({
    role: "system",
    content: `You are a coding agent working in a large repository. Use the tools to inspect files and run ` +
      `commands, and keep track of every identifier the user gives you. ${sentence(system, 20)}`,
  });
  for (let turn = 0; turn < params.turns; turn++) {
    const stream = new HashStream(`${seed}|turn|${turn}`);
    messages.push({ role: "user", content: sentence(stream, wordsPerMsg) });
    const shape = stream.next();
    if (shape % 2 === 0) {
      const callCount = shape % 3 === 0 ? 2 : 1;
      const calls: ToolCall[] = [];
      for (let c = 0; c < callCount; c++) {
        const name = TOOL_NAMES[stream.next() % TOOL_NAMES.length];
        const [dir, file] = words(stream, 2);
        calls.push({
          id: `call_${hexOf(`${seed}|call|${turn}|${c}`, 16)}`,
          type: "function",
          function: { name, arguments: JSON.stringify({ path: `src/${dir}/${file}.ts` }) },
        });
      }
      messages.push({ role: "assistant", content: sentence(stream, 8), tool_calls: calls });
      for (const call of calls) {
        messages.push({ role: "tool", tool_call_id: call.id, content: sentence(stream, wordsPerMsg) });
      }
    }
    messages.push({ role: "assistant", content: sentence(stream, wordsPerMsg) });
  }
  const needles = plantNeedles(messages, depths, seed);
  return { params: { ...params, needleDepths: depths }, messages, needles, hash: transcriptHash(messages) };
}

/** Plants one needle per depth into `messages` (in place) and describes them. */
function plantNeedles(messages: ChatMessage[], depths: number[], seed: string): Needle[] {
  const roles = ["user", "assistant", "tool"] as const;
  const positions: NeedlePosition[] = ["start", "middle", "end"];
  const used = new Set<number>();
  const last = messages.length - 1;
  const needles: Needle[] = [];
  depths.forEach((depth, i) => {
    const role = roles[i % 3];
    const position = positions[(i + Math.floor(i / 3)) % 3];
    const eligible = (index: number) =>
      !used.has(index) && messages[index].role === role && !(messages[index].tool_calls?.length);
    const target = Math.round(depth * last);
    let index = -1;
    for (let distance = 0; distance <= last && index < 0; distance++) {
      if (target - distance >= 1 && eligible(target - distance)) index = target - distance;
      else if (distance > 0 && target + distance <= last && eligible(target + distance)) {
        index = target + distance;
      }
    }
    if (index < 0) {
      throw new UsageError(
        `transcript generator: no free ${role} message for needle ${i + 1}; use more turns`,
      );
    }
    used.add(index);
    const number = i + 1;
    const id = `NEEDLE-${String(number).padStart(3, "0")}`;
    const answer = `dt-${hexOf(`${seed}|needle|${number}`, 16)}`;
    const fact = `${id}: the deploy token for shard ${number} is ${answer}.`;
    messages[index] = { ...messages[index], content: plant(messages[index].content ?? "", fact, position) };
    needles.push({
      id,
      fact,
      question: `What is the deploy token for shard ${number}?`,
      answer,
      message_index: index,
      depth: last > 0 ? index / last : 0,
      position,
      role,
    });
  });
  return needles;
}
