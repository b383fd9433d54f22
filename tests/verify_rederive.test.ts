/**
 * `verify --rederive` re-executes every provider-free stage of a run from its stored inputs: on an intact run
 * every output is byte-identical and it says how many nodes it re-derived; on a run re-sealed with an altered
 * aggregate.json (new blob, node output, file record, downstream key, journal chain and manifest all
 * recomputed) plain `verify` passes and `--rederive` fails, naming the aggregate node.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "./helpers/spawn.ts";
import { copyRun, resealWithEditedFile } from "./helpers/reseal.ts";

const dir = await Deno.makeTempDir({ prefix: "verify_rederive_" });
globalThis.addEventListener("unload", () => {
  new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
});

const collected = await runCli([
  "hotpot",
  "collect",
  "--questions",
  "2",
  "--output",
  join(dir, "collect"),
  "-q",
]);
assert.equal(collected.code, 0, collected.stderr);
const run = join(dir, "run");
const made = await runCli([
  "hotpot",
  "run",
  "--corpus",
  join(dir, "collect", "corpus.json"),
  "--reference",
  "--compressions",
  "1",
  "--answers",
  "1",
  "--output",
  run,
  "-q",
]);
assert.equal(made.code, 0, made.stderr);

Deno.test("verify --rederive re-derives every provider-free node of an intact run byte for byte", async () => {
  const result = await runCli(["verify", "--rederive", run]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const count = Number(/re-derived (\d+) node\(s\)/.exec(result.stdout)?.[1]);
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  const pure = manifest.nodes.filter((n: { stage: string }) =>
    [
      "hotpot-corpus-head",
      "hotpot-question",
      "hotpot-context",
      "hotpot-score",
      "hotpot-rows",
      "hotpot-aggregate",
      "hotpot-report",
      "published-json",
      "run-header",
    ].includes(n.stage)
  );
  assert.equal(count, pure.length);
  assert.match(result.stdout, /every output is byte-identical/);
  // protocol.json is a node output too.
  const protocol = manifest.nodes.find((n: { label: string }) => n.label === "publish protocol.json");
  assert.equal(manifest.files["protocol.json"], protocol.outputs.file);
});

Deno.test("a run re-sealed with an altered aggregate.json passes verify and fails verify --rederive naming the node", async () => {
  const forged = join(dir, "forged");
  await copyRun(run, forged);
  await resealWithEditedFile(forged, "aggregate.json", (text) => {
    const aggregates = JSON.parse(text);
    aggregates[0].metrics.em = 0.987;
    return JSON.stringify(aggregates, null, 2) + "\n";
  });
  const plain = await runCli(["verify", forged]);
  assert.equal(plain.code, 0, `plain verify is fooled by a consistent re-seal: ${plain.stdout}`);
  const manifest = JSON.parse(await Deno.readTextFile(join(forged, "manifest.json")));
  const aggregate = manifest.nodes.find((n: { stage: string }) => n.stage === "hotpot-aggregate");
  assert.equal(aggregate.outputs["aggregate.json"], manifest.files["aggregate.json"]);
  const rederived = await runCli(["verify", "--rederive", forged]);
  assert.equal(rederived.code, 1, rederived.stdout);
  assert.match(
    rederived.stdout,
    new RegExp(`hotpot-aggregate node ${aggregate.key} \\(aggregate\\): output aggregate\\.json differs`),
  );
});

Deno.test("the aggregate depends, through the DAG, on every node of the run that is not downstream of it", async () => {
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  const nodes: { stage: string; inputs: Record<string, string>; outputs: Record<string, string> }[] =
    manifest.nodes;
  const producer = new Map<string, number>();
  nodes.forEach((node, i) =>
    Object.values(node.outputs).forEach((h) => producer.has(h) || producer.set(h, i))
  );
  const parents = nodes.map((node) =>
    Object.values(node.inputs).filter((h) => producer.has(h)).map((h) => producer.get(h)!)
  );
  const children = nodes.map(() => [] as number[]);
  parents.forEach((ps, i) => ps.forEach((p) => children[p].push(i)));
  const reach = (start: number, edges: number[][]) => {
    const seen = new Set<number>();
    const todo = [start];
    while (todo.length > 0) {
      for (const next of edges[todo.pop()!]) if (!seen.has(next)) seen.add(next) && todo.push(next);
    }
    return seen;
  };
  const aggregate = producer.get(manifest.files["aggregate.json"])!;
  const above = reach(aggregate, parents);
  const below = reach(aggregate, children);
  const outside = nodes.filter((_, i) => i !== aggregate && !above.has(i) && !below.has(i)).map((n) =>
    n.stage
  );
  assert.deepEqual(outside, []);
});
