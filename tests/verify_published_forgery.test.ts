/**
 * A published file must be an output of the node that publishes it. A sealed hotpot run's `aggregate.json` is
 * replaced (its bytes stored as a blob, the file record, journal chain and manifest re-sealed), plainly or
 * with the forged blob hung on the aggregate node as an output named `__proto__`, `constructor` or an
 * undeclared plain name: `verify`, `verify --rederive` and `scripts/audit_run.py` each name the forgery.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { canonicalJson } from "../src/store/canonical.ts";
import { sha256Hex } from "../src/store/hash.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";
import { copyRun } from "./helpers/reseal.ts";
import { putBlob } from "./helpers/reseal_nodes.ts";

const dir = await Deno.makeTempDir({ prefix: "verify_published_forgery_" });
globalThis.addEventListener("unload", () => {
  new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
});

const collected = await runCli(["hotpot", "collect", "--questions", "2", "--output", join(dir, "c"), "-q"]);
assert.equal(collected.code, 0, collected.stderr);
const run = join(dir, "run");
const made = await runCli([
  "hotpot",
  "run",
  "--corpus",
  join(dir, "c", "corpus.json"),
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

async function audit(path: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command("python3", {
    args: [join(ROOT, "scripts", "audit_run.py"), path],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/**
 * A copy of the run whose aggregate.json is forged and re-sealed; with `output`, the forged blob is also an
 * output of that name of the aggregate node (a member made with defineProperty: `__proto__` stays a key).
 */
async function forge(name: string, output?: string): Promise<string> {
  const copy = join(dir, name);
  await copyRun(run, copy);
  const text = await Deno.readTextFile(join(copy, "aggregate.json"));
  const forged = text.replace(/("em": )(0\.\d+|\d+)/, "$10.987");
  assert.notEqual(forged, text);
  const bytes = new TextEncoder().encode(forged);
  const hash = await putBlob(copy, bytes);
  await Deno.chmod(join(copy, "aggregate.json"), 0o644);
  await Deno.writeFile(join(copy, "aggregate.json"), bytes);
  const entries = (await Deno.readTextFile(join(copy, "journal.jsonl"))).split("\n").filter((l) => l !== "")
    .map((l) => JSON.parse(l));
  for (const entry of entries) {
    if (entry.type === "file" && entry.name === "aggregate.json") entry.hash = hash;
    if (output !== undefined && entry.type === "node" && entry.node.stage === "hotpot-aggregate") {
      Object.defineProperty(entry.node.outputs, output, {
        value: hash,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  const lines: string[] = [];
  let prev: string | null = null;
  for (const entry of entries) {
    entry.prev = prev;
    const line: string = canonicalJson(entry);
    lines.push(line);
    prev = sha256Hex(line);
  }
  const journal = lines.map((l) => l + "\n").join("");
  await Deno.chmod(join(copy, "journal.jsonl"), 0o644);
  await Deno.writeTextFile(join(copy, "journal.jsonl"), journal);
  const manifest = {
    ...entries[0].header,
    finished: entries[0].header.created,
    nodes: entries.filter((e) => e.type === "node").map((e) => e.node),
    files: Object.fromEntries(entries.filter((e) => e.type === "file").map((e) => [e.name, e.hash])),
    journal: { lines: lines.length, sha256: sha256Hex(journal) },
  };
  await Deno.chmod(join(copy, "manifest.json"), 0o644);
  // Written as canonical JSON with indentation would lose a defineProperty'd `__proto__`: canonical text.
  await Deno.writeTextFile(join(copy, "manifest.json"), canonicalJson(manifest) + "\n");
  await Deno.chmod(join(copy, "manifest.json"), 0o444);
  return copy;
}

Deno.test("the intact run verifies, re-derives and passes the auditor", async () => {
  assert.equal((await runCli(["verify", run])).code, 0);
  const audited = await audit(run);
  assert.equal(audited.code, 0, audited.stdout + audited.stderr);
});

Deno.test("a forged aggregate.json that no node produced is named by verify, --rederive and the auditor", async () => {
  const copy = await forge("plain");
  const verified = await runCli(["verify", copy]);
  assert.equal(verified.code, 1, verified.stdout);
  assert.match(verified.stdout, /not_node_output: file aggregate\.json: its blob [0-9a-f]{64} is no output/);
  assert.equal((await runCli(["verify", "--rederive", copy])).code, 1);
  const audited = await audit(copy);
  assert.equal(audited.code, 1);
  assert.match(audited.stdout, /not_node_output: file aggregate\.json: its blob [0-9a-f]{64} is no output/);
});

for (const output of ["__proto__", "constructor"]) {
  Deno.test(`a forged aggregate.json hung on the aggregate node as output ${output} is named`, async () => {
    const copy = await forge(`proto-${output}`, output);
    const verified = await runCli(["verify", copy]);
    assert.equal(verified.code, 1, verified.stdout);
    assert.match(verified.stdout, new RegExp(`journal: .*line \\d+: invalid node: output name "${output}"`));
    assert.match(verified.stdout, /manifest: manifest\.json node #\d+: output name/);
    assert.match(verified.stdout, /not_node_output: file aggregate\.json/);
    assert.equal((await runCli(["verify", "--rederive", copy])).code, 1);
    const audited = await audit(copy);
    assert.equal(audited.code, 1);
    assert.match(
      audited.stdout,
      new RegExp(`line \\d+: invalid node: output name "${output}" is not a plain name`),
    );
    assert.match(audited.stdout, /not_node_output: file aggregate\.json/);
  });
}

Deno.test("an output name the stage does not declare is named by verify and the auditor", async () => {
  const copy = await forge("undeclared", "forged");
  const verified = await runCli(["verify", copy]);
  assert.equal(verified.code, 1, verified.stdout);
  assert.match(
    verified.stdout,
    /undeclared_output: node #\d+ aggregate .* output forged: stage hotpot-aggregate/,
  );
  const audited = await audit(copy);
  assert.equal(audited.code, 1);
  assert.match(
    audited.stdout,
    /undeclared_output: node #\d+ aggregate .* output forged: stage hotpot-aggregate/,
  );
});

Deno.test("the auditor's table of declared outputs is the stage registry's", async () => {
  const { STAGES } = await import("../src/suites/registry.ts");
  const out = await new Deno.Command("python3", {
    args: [
      "-c",
      "import sys, json; sys.path.insert(0, sys.argv[1]); import audit_run as A; print(json.dumps(A.DECLARED_OUTPUTS))",
      join(ROOT, "scripts"),
    ],
    stdout: "piped",
  }).output();
  const table = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(table, Object.fromEntries(STAGES.map((s) => [s.name, Object.keys(s.outputs)])));
});
