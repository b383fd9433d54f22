/**
 * The per-node store path of a run, alone: a finished run's executed nodes are replayed through an
 * {@link Executor} into a fresh run folder (params made canonical and keyed, each output stored as canonical
 * JSON or text and read back, each call record stored, a journal line after the blobs' fsync), 64 nodes in
 * flight as `hotpot run --live` keeps them; no provider, tokenizer or report. Prints the process's CPU (user +
 * system, every thread) per round and per node; the replayed keys and blobs equal the run's.
 *
 * Usage: `deno run -A bench/store_path.ts RUN [--rounds N] [--dir DIR]` (RUN: e.g. a `hotpot run --live`
 * folder; DIR: where the replays are written, default the system's temp folder).
 *
 * @module
 */
import process from "node:process";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { Executor } from "../src/pipeline/executor.ts";
import { type AnyStageDef, defineStage, type OutputSpecs } from "../src/pipeline/stage.ts";
import type { CallRecord } from "../src/core/call_record.ts";
import { canonicalJson } from "../src/store/canonical.ts";
import type { Node } from "../src/store/manifest.ts";
import { RunDir } from "../src/store/run_dir.ts";

/** One node to replay: its stage, what its body returns, and the call it was made with. */
interface Replayed {
  def: AnyStageDef;
  node: Node;
  outputs: Record<string, unknown>;
  records: CallRecord[];
}

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { rounds: { type: "string", default: "5" }, dir: { type: "string" } },
  allowPositionals: true,
});
const source = positionals[0];
if (source === undefined) throw new Error("usage: bench/store_path.ts RUN [--rounds N] [--dir DIR]");
const lines = (await Deno.readTextFile(join(source, "journal.jsonl"))).split("\n").filter((l) => l !== "");
const { sources: _, ...header } = JSON.parse(lines[0]).header;

/** A blob of the run as text. */
function blobText(hash: string): string {
  return Deno.readTextFileSync(join(source, "objects", "sha256", hash.slice(0, 2), hash.slice(2)));
}

const defs = new Map<string, AnyStageDef>();
const replayed: Replayed[] = [];
for (const line of lines.slice(1)) {
  const entry = JSON.parse(line);
  if (entry.type !== "node" || entry.node.reused_from !== undefined) continue;
  const node = entry.node as Node;
  const outputs: Record<string, unknown> = {};
  const specs: OutputSpecs = {};
  for (const [name, hash] of Object.entries(node.outputs)) {
    const text = blobText(hash);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    // A blob that is the canonical JSON of its value was a JSON output; any other was a text output.
    const isJson = json !== undefined && canonicalJson(json) === text;
    outputs[name] = isJson ? json : text;
    specs[name] = { schema: z.unknown(), doc: name, ...(isJson ? {} : { kind: "text" as const }) };
  }
  const id = `${node.stage}@${node.version}:${Object.keys(specs).map((n) => `${n}${specs[n].kind ?? ""}`)}`;
  let def = defs.get(id);
  if (def === undefined) {
    def = defineStage({
      name: node.stage,
      version: node.version,
      doc: "replayed",
      params: z.unknown(),
      inputs: ["*"],
      hashOnlyInputs: ["*"],
      outputs: specs,
      provider: false,
      run: ({ env }: { env: Replayed }) =>
        Promise.resolve({
          outputs: env.outputs,
          status: env.node.status,
          ...(env.node.reason !== undefined ? { reason: env.node.reason } : {}),
          requests: env.records,
        }),
    }) as AnyStageDef;
    defs.set(id, def);
  }
  const records = node.requests.map((hash) => JSON.parse(blobText(hash)) as CallRecord);
  replayed.push({ def, node, outputs, records });
}

const rounds = Number(values.rounds);
const cpu: number[] = [];
for (let round = 0; round < rounds; round++) {
  const dir = await Deno.makeTempDir({ prefix: "store_path_", dir: values.dir });
  try {
    const run = await RunDir.create(join(dir, "run"), header, {});
    const executor = new Executor(run, { heapBudget: null });
    const start = process.cpuUsage();
    for (let i = 0; i < replayed.length; i += 64) {
      await Promise.all(
        replayed.slice(i, i + 64).map((r) =>
          executor.runStage(r.def, { label: r.node.label, params: r.node.params, inputs: r.node.inputs }, r)
        ),
      );
    }
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
    await run.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
const sorted = [...cpu].sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)];
console.log(
  `${replayed.length} nodes, ${replayed.reduce((n, r) => n + r.records.length, 0)} records: CPU per round ` +
    `${cpu.map((c) => c.toFixed(0)).join(" ")} ms; median ${median.toFixed(0)} ms, ` +
    `${(median * 1000 / replayed.length).toFixed(0)} us per node`,
);
