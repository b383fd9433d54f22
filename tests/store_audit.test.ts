import assert from "node:assert/strict";
import { join } from "node:path";
import { blobRelativePath } from "../src/store/blob_store.ts";
import { canonicalJson } from "../src/store/canonical.ts";
import { sha256Hex } from "../src/store/hash.ts";
import { type Manifest, nodeKey } from "../src/store/manifest.ts";
import { readManifest, RunDir } from "../src/store/run_dir.ts";
import { testHeader } from "./helpers/header.ts";
import { runPipeline } from "./helpers/pipeline.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";
import { flipByte } from "./helpers/tree.ts";

const AUDITOR = join(ROOT, "scripts", "audit_run.py");

interface Audit {
  code: number;
  lines: string[];
  stderr: string;
}

async function audit(run: string, ...flags: string[]): Promise<Audit> {
  const out = await new Deno.Command("python3", {
    args: [AUDITOR, ...flags, run],
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const stdout = new TextDecoder().decode(out.stdout);
  return {
    code: out.code,
    lines: stdout.split("\n").filter((l) => l !== ""),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/**
 * A fresh run whose published files are a node output (as in runs of the suites) and a declared source: a
 * source, two derive nodes (one with a call record), a report node whose output is the exact bytes of
 * `results.json`.
 */
async function freshRun(path: string): Promise<Manifest> {
  const run = await RunDir.create(path, testHeader(), { "seed.txt": new TextEncoder().encode("seed\n") });
  const seed = run.header.sources["seed.txt"];
  const node = async (
    stage: string,
    params: unknown,
    inputs: Record<string, string>,
    outputs: Record<string, string>,
    requests: string[] = [],
  ) => {
    await run.recordNode({
      key: nodeKey(stage, 1, params, inputs),
      label: `${stage} ${JSON.stringify(params)}`,
      stage,
      version: 1,
      params,
      inputs,
      outputs,
      requests,
      usage: { calls: requests.length, input_tokens: 0, output_tokens: 0 },
      started: "2026-01-01T00:00:00.000Z",
      finished: "2026-01-01T00:00:00.000Z",
      status: "ok",
    });
  };
  const a = await run.store.putJson({ value: 0.1 + 0.2, tiny: 1e-7, big: 1e21, text: 'é\u2028\u0001"' });
  const call = await run.store.putJson({
    endpoint: "chat",
    request: { messages: [{ role: "user", content: "q" }], max_tokens: 16 },
    response: { choices: [] },
    status: "ok",
    attempts: 1,
    elapsed_ms: 3.25,
    model: "reference",
    usage: { input_tokens: 5, output_tokens: 1 },
  });
  await node("derive", { i: 0, "\u{1f600}": 1, "\ufb33": 2 }, { seed }, { value: a }, [call]);
  const b = await run.store.putJson({ value: -0.000001, n: 123456789012 });
  await node("derive", { i: 1 }, { seed }, { value: b });
  const published = JSON.stringify({ a: 0.30000000000000004, b: 123456789012 }, null, 2) + "\n";
  const report = await run.store.putText(published);
  await node("report", {}, { a, b }, { "results.json": report });
  await run.writeFile("results.json", published);
  await run.writeFile("seed.txt", "seed\n"); // a declared source, published as given
  // Metadata published through a node whose params name the file (as `published-json` does).
  const protocol = await run.store.putText(JSON.stringify({ ceiling: 3600 }, null, 2) + "\n");
  await node("publish", { name: "protocol.json" }, { report }, { file: protocol });
  await run.publish("protocol.json", protocol);
  await run.finish();
  return await readManifest(run.path);
}

/**
 * Rewrites a run's journal after `mutate` edits its parsed lines, recomputing the chain, then the manifest
 * (nodes, files, journal digest): a forgery consistent in everything but what `mutate` broke.
 */
async function reseal(run: string, mutate: (entries: Record<string, unknown>[]) => void): Promise<void> {
  const path = join(run, "journal.jsonl");
  const entries = (await Deno.readTextFile(path)).split("\n").slice(0, -1).map((l) => JSON.parse(l));
  mutate(entries);
  let prev: string | null = null;
  const lines: string[] = [];
  for (const entry of entries) {
    const line = canonicalJson({ ...entry, prev });
    lines.push(line);
    prev = sha256Hex(line);
  }
  const text = lines.join("\n") + "\n";
  await Deno.writeTextFile(path, text);
  const m: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  m.nodes = entries.filter((e) => e.type === "node").map((e) => e.node as Manifest["nodes"][number]);
  m.journal = { lines: lines.length, sha256: sha256Hex(text) };
  await Deno.writeTextFile(join(run, "manifest.json"), JSON.stringify(m, null, 2) + "\n");
}

async function copyRun(from: string, to: string): Promise<void> {
  const out = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  assert.ok(out.success);
}

Deno.test("the independent auditor passes a fresh run and fails tampered copies, one line per problem", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    const manifest = await freshRun(run);
    const good = await audit(run);
    assert.deepEqual(good.lines, [], good.stderr);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stderr, /^ok: .*: 6 blobs, 4 nodes, 3 published files/m);
    const strict = await audit(run, "--strict");
    assert.deepEqual(strict.lines, []);

    const tamper = async (name: string, edit: (copy: string) => Promise<void>, expected: RegExp) => {
      const copy = join(dir, name);
      await copyRun(run, copy);
      await edit(copy);
      const result = await audit(copy);
      assert.equal(result.code, 1, `${name}: ${result.lines.join("\n")}`);
      assert.ok(
        result.lines.some((l) => expected.test(l)),
        `${name}: want ${expected}, got:\n${result.lines.join("\n")}`,
      );
    };
    const a = manifest.nodes[0].outputs.value;
    await tamper("flip", (c) => flipByte(join(c, blobRelativePath(a))), new RegExp(`^altered: blob ${a}: `));
    await tamper(
      "journal",
      async (c) => {
        const path = join(c, "journal.jsonl");
        const lines = (await Deno.readTextFile(path)).split("\n");
        const entry = JSON.parse(lines[2]);
        entry.node.usage.input_tokens = 99;
        lines[2] = canonicalJson(entry);
        await Deno.writeTextFile(path, lines.join("\n"));
      },
      /^journal: journal\.jsonl: line 4: chain broken/,
    );
    await tamper(
      "manifest",
      async (c) => {
        const path = join(c, "manifest.json");
        const m: Manifest = JSON.parse(await Deno.readTextFile(path));
        m.nodes[1].params = { i: 7 };
        await Deno.writeTextFile(path, JSON.stringify(m, null, 2));
      },
      /^manifest: node #1: differs between manifest\.json and the journal/,
    );
    await tamper(
      "resealed-key",
      (c) =>
        reseal(c, (entries) => {
          (entries[2].node as { params: unknown }).params = { i: 7 };
        }),
      /^key_mismatch: node #1 derive/,
    );
    await tamper(
      "fifo",
      async (c) => {
        const path = join(c, blobRelativePath(a));
        await Deno.remove(path);
        assert.ok((await new Deno.Command("mkfifo", { args: [path] }).output()).success);
      },
      new RegExp(`^not_regular: blob ${a}: a FIFO`),
    );
    await tamper(
      "symlink",
      async (c) => {
        const path = join(c, "results.json");
        await Deno.copyFile(path, join(dir, "outside.json"));
        await Deno.remove(path);
        await Deno.symlink(join(dir, "outside.json"), path);
      },
      /^not_regular: file results\.json: a symlink/,
    );
    // A copy's lost read-only modes (every blob alike) are one note, not problems, unless --strict-modes (as
    // `verify`); one blob made writable beside read-only ones is a problem.
    await tamper("mode", (c) => Deno.chmod(join(c, blobRelativePath(a)), 0o644), /^mode: blob .*0644/);
    const loose = join(dir, "loose-mode");
    // A fresh copy (new files, new times), as zip or git makes one, that lost the modes as it wrote them.
    assert.ok((await new Deno.Command("cp", { args: ["-r", run, loose] }).output()).success);
    for (const entry of Deno.readDirSync(join(loose, "objects", "sha256"))) {
      for (const blob of Deno.readDirSync(join(loose, "objects", "sha256", entry.name))) {
        await Deno.chmod(join(loose, "objects", "sha256", entry.name, blob.name), 0o644);
      }
    }
    const lenient = await audit(loose);
    assert.deepEqual([lenient.code, lenient.lines], [0, []], lenient.stderr);
    assert.match(lenient.stderr, /^note: 6 of 6 blob\(s\) are not read-only \(mode 0644/m);
    const strictModes = await audit(loose, "--strict-modes");
    assert.equal(strictModes.code, 1);
    assert.match(strictModes.lines.join("\n"), new RegExp(`^mode: blob ${a}: mode 0644`, "m"));
    await tamper(
      "published",
      (c) => Deno.writeTextFile(join(c, "results.json"), "{}\n"),
      /^file_mismatch: file results\.json/,
    );
    await tamper(
      "stray",
      (c) => Deno.writeTextFile(join(c, "stray.txt"), "x"),
      /^unknown_file: stray\.txt/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the auditor names a published file that is no node output", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    await runPipeline({ output: run, stages: 3, detachedResults: true });
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
    const result = await audit(run);
    assert.deepEqual(result.lines, [
      `not_node_output: file results.json: its blob ${
        manifest.files["results.json"]
      } is no output "results.json" of a node, nor a declared source`,
    ]);
    assert.equal(result.code, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Deterministic pseudo-random doubles across every magnitude (xorshift over the 64 bits of a double). */
function doubles(count: number): number[] {
  const view = new DataView(new ArrayBuffer(8));
  let x = 0x2545f4914f6cdd1dn;
  const out: number[] = [];
  while (out.length < count) {
    x ^= (x << 13n) & 0xffffffffffffffffn;
    x ^= x >> 7n;
    x ^= (x << 17n) & 0xffffffffffffffffn;
    view.setBigUint64(0, x);
    const value = view.getFloat64(0);
    if (Number.isFinite(value)) out.push(value);
    out.push(
      Math.round(value * 1e6) / 1e6 || 0,
      (x & 0xffffn) === 0n ? 2 ** 53 - 1 : Number(x & 0xfffffn) / 1000,
    );
  }
  return out;
}

Deno.test("the auditor's canonical JSON equals the program's on RFC 8785 vectors and thousands of numbers and strings", async () => {
  const values: unknown[] = [
    JSON.parse(String.raw`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001]}`),
    JSON.parse(
      String.raw`{"\u20ac":1,"\r":2,"\ufb33":3,"1":4,"\ud83d\ude00":5,"\u0080":6,"\u00f6":7,"</script>":8}`,
    ),
    { s: '\u0000\u0001\b\t\n\u000b\f\r\u001f "\\/\u007f\u2028\u2029é😀\u1e0d\u0307' },
    [
      0,
      -0,
      5e-324,
      -5e-324,
      1.7976931348623157e308,
      9.999999999999997e22,
      1e21,
      1e-6,
      1e-7,
      295147905179352830000,
    ],
    [0.1, 0.2, 0.30000000000000004, 123456789.123, -1e-320, 2 ** 53 - 1, -(2 ** 53 - 1), 4294967296.5],
    { nested: [{ b: [], a: {} }, "x", null, true, false] },
  ];
  const numbers = doubles(4000);
  for (let i = 0; i < numbers.length; i += 50) values.push(numbers.slice(i, i + 50));
  for (let i = 0; i < 200; i++) {
    const codes = Array.from({ length: 8 }, (_, j) => (i * 7919 + j * 104729) % 0xd7ff);
    values.push({ [String.fromCharCode(...codes)]: String.fromCharCode(...codes.reverse()), k: i });
  }
  const accepted = values.filter((v) => {
    try {
      canonicalJson(v);
      return true;
    } catch {
      return false;
    }
  });
  assert.ok(accepted.length > 250);
  const input = accepted.map((v) => JSON.stringify(v)).join("\n") + "\n";
  const script = `import json, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, "scripts"))})
import audit_run
for line in sys.stdin.buffer.read().decode("utf-8").split("\\n")[:-1]:
    sys.stdout.write(audit_run.canonical(audit_run.parse_json(line.encode("utf-8"))) + "\\n")`;
  const child = new Deno.Command("python3", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const lines = new TextDecoder().decode(out.stdout).split("\n").slice(0, -1);
  assert.equal(lines.length, accepted.length);
  accepted.forEach((value, i) => assert.equal(lines[i], canonicalJson(value), `value #${i}`));
  assert.equal(sha256Hex(lines.join("\n")), sha256Hex(accepted.map((v) => canonicalJson(v)).join("\n")));
});

Deno.test("the auditor says an unfinished run is unfinished and counts its header's sources as declared", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "run"), testHeader(), {
      "seed.txt": new TextEncoder().encode("s"),
    });
    const seed = run.header.sources["seed.txt"];
    const out = await run.store.putJson({ derived: 1 });
    await run.recordNode({
      key: nodeKey("derive", 1, {}, { seed }),
      label: "derive",
      stage: "derive",
      version: 1,
      params: {},
      inputs: { seed },
      outputs: { out },
      requests: [],
      usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
      started: "2026-01-01T00:00:00.000Z",
      finished: "2026-01-01T00:00:00.000Z",
      status: "ok",
    });
    // Still held: the writer's lock is part of an unfinished run.
    const result = await audit(run.path);
    assert.deepEqual(result.lines, ["unfinished: manifest.json: missing: the run never finished"]);
    assert.equal(result.code, 1);
    await run.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a hotpot collect run passes the auditor's --strict: corpus.json and selection.json are node outputs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "collect");
    const made = await runCli(["hotpot", "collect", "--questions", "4", "--output", run, "-q"]);
    assert.equal(made.code, 0, made.stderr);
    const result = await audit(run, "--strict");
    assert.deepEqual(result.lines, []);
    assert.equal(result.code, 0, result.stderr);
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
    const corpusNode = manifest.nodes.find((n) => n.stage === "hotpot-corpus")!;
    assert.equal(manifest.files["corpus.json"], corpusNode.outputs["corpus.json"]);
    assert.equal(manifest.files["selection.json"], corpusNode.outputs["selection.json"]);
    const rederived = await runCli(["verify", "--rederive", run]);
    assert.equal(rederived.code, 0, rederived.stdout + rederived.stderr);
    assert.match(rederived.stdout, /re-derived 3 node\(s\)/); // the selection, the corpus and the run header
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
