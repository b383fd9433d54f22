import assert from "node:assert/strict";
import { join } from "node:path";
import { UsageError } from "../src/errors.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { testHeader } from "./helpers/header.ts";
import { runPipeline } from "./helpers/pipeline.ts";
import { runCli, runDeno } from "./helpers/spawn.ts";
import { describeTree } from "./helpers/tree.ts";

async function populate(dir: string): Promise<void> {
  await Deno.mkdir(join(dir, "objects/sha256/ab"), { recursive: true });
  await Deno.writeTextFile(join(dir, "journal.jsonl"), "someone else's journal\n");
  await Deno.writeTextFile(join(dir, "notes.txt"), "precious, do not touch\n");
  await Deno.writeFile(join(dir, "objects/sha256/ab/cd"), new Uint8Array([1, 2, 3]), { mode: 0o444 });
}

const header = testHeader();

Deno.test("the CLI refuses an existing --output directory with exit 2 and leaves it byte for byte as it was", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const output = join(dir, "taken");
    await Deno.mkdir(output);
    await populate(output);
    const before = await describeTree(dir);
    const result = await runCli(["demo", "--output", output, "--quiet"]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /already exists/);
    assert.ok(result.stderr.includes(output), `the message names the directory: ${result.stderr}`);
    assert.deepEqual(await describeTree(dir), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an existing empty directory is refused too, and stays empty", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const before = await describeTree(dir);
    await assert.rejects(() => RunDir.create(dir, header), (error: unknown) => error instanceof UsageError);
    assert.deepEqual(await describeTree(dir), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a finished run cannot be resumed: exit 2 through the CLI, and the run is left unchanged", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "finished");
    await runPipeline({ output: run, stages: 3 });
    const before = await describeTree(run);
    for (const command of [["hotpot", "run"], ["sweep", "run"], ["hotpot", "collect"]]) {
      const viaCli = await runCli([...command, "--resume", run, "--quiet"]);
      assert.equal(viaCli.code, 2, viaCli.stderr);
      assert.match(viaCli.stderr, /finished run/);
    }
    const viaPipeline = await runDeno("tests/helpers/pipeline_cli.ts", ["--resume", run]);
    assert.equal(viaPipeline.code, 2, viaPipeline.stderr);
    assert.match(viaPipeline.stderr, /finished run/);
    await assert.rejects(() => RunDir.resume(run), (error: unknown) => error instanceof UsageError);
    assert.deepEqual(await describeTree(run), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resuming a directory that is not a run is refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(
      () => RunDir.resume(dir),
      (error: unknown) => error instanceof UsageError && /no journal\.jsonl/.test(error.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a sealed run refuses further nodes and files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "run"), header);
    await run.writeFile("a.txt", "a");
    await run.finish();
    await assert.rejects(() => run.writeFile("b.txt", "b"), /already sealed/);
    await assert.rejects(() => run.finish(), /already sealed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the manifest is written streaming: pretty-printed, its nodes exactly as journaled, and hashed", async () => {
  const { ManifestSchema, nodeKey } = await import("../src/store/manifest.ts");
  const { canonicalJson } = await import("../src/store/canonical.ts");
  const { readJournal } = await import("../src/store/journal.ts");
  const { sha256Hex } = await import("../src/store/hash.ts");
  // 300 nodes: a manifest of several written chunks (about 64 Ki characters each), non-ASCII labels across them.
  for (const count of [0, 1, 3, 300]) {
    const dir = await Deno.makeTempDir();
    try {
      const run = await RunDir.create(join(dir, "r"), { ...header, shard: { index: 1, count: 2 } });
      for (let i = 0; i < count; i++) {
        const out = await run.store.putJson({ i, text: 'line\nbreak "quoted"' });
        await run.recordNode({
          key: nodeKey("s", 1, { i }, {}),
          label: `s ${i} é😀`,
          stage: "s",
          version: 1,
          params: { i, nested: { list: [1, { deep: true }] } },
          inputs: {},
          outputs: { out },
          requests: [],
          usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
          started: "2026-01-01T00:00:00.000Z",
          finished: "2026-01-01T00:00:00.000Z",
          status: i === 1 ? "invalid" : "ok",
          ...(i === 1 ? { reason: "because" } : {}),
        });
      }
      await run.writeJsonFile("out.json", { count });
      const { hash } = await run.finish();
      const bytes = await Deno.readFile(join(dir, "r", "manifest.json"));
      const text = new TextDecoder().decode(bytes);
      const manifest = JSON.parse(text);
      assert.equal(text, JSON.stringify(manifest, null, 2) + "\n");
      // The header in the schema's order; each node as the journal holds it (canonical: keys sorted).
      const head = { ...manifest, nodes: [] };
      assert.equal(JSON.stringify(head), JSON.stringify(ManifestSchema.parse(head)));
      const journal = await readJournal(join(dir, "r", "journal.jsonl"));
      assert.deepEqual(
        manifest.nodes.map((n: unknown) => JSON.stringify(n)),
        journal.nodes.map(canonicalJson),
      );
      assert.equal(hash, sha256Hex(bytes));
      assert.equal(manifest.nodes.length, count);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("text written atomically in many small pieces is their exact concatenation, hashed as written", async () => {
  const { writeTextAtomic } = await import("../src/store/run_dir.ts");
  const { sha256Hex } = await import("../src/store/hash.ts");
  const dir = await Deno.makeTempDir();
  try {
    // ~3,000 pieces of mixed widths (ASCII, 2-, 3- and 4-byte UTF-8) across several write chunks.
    const pieces = Array.from({ length: 3000 }, (_, i) => `${i}:${"aé€😀".repeat(i % 17)}\n`);
    const expected = pieces.join("");
    const path = join(dir, "out.txt");
    const hash = await writeTextAtomic(
      path,
      (async function* () {
        yield* pieces;
      })(),
    );
    const bytes = await Deno.readFile(path);
    assert.equal(new TextDecoder().decode(bytes), expected);
    assert.equal(hash, sha256Hex(bytes));
    assert.equal(hash, sha256Hex(expected));
    const empty = join(dir, "empty.txt");
    assert.equal(await writeTextAtomic(empty, []), sha256Hex(""));
    assert.equal((await Deno.readFile(empty)).length, 0);
    await assert.rejects(() => writeTextAtomic(path, ["again"]), /refusing to overwrite/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fileLines gives every line as decoding each line on its own does, whatever the chunk size", async () => {
  const { fileLines } = await import("../src/core/file_chunks.ts");
  const { concatBytes } = await import("../src/core/bytes.ts");
  const strict = new TextDecoder("utf-8", { fatal: true });
  // The reference: split the bytes at each newline, decode every line on its own (a BOM dropped at its start).
  const expected = (bytes: Uint8Array): string[] | "refused" => {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (let end = bytes.indexOf(10); end !== -1; end = bytes.indexOf(10, start)) {
      lines.push(bytes.subarray(start, end));
      start = end + 1;
    }
    if (start < bytes.length) lines.push(bytes.subarray(start));
    try {
      return lines.map((line) => strict.decode(line));
    } catch {
      return "refused";
    }
  };
  const pieces = [
    "a",
    '{"x":1}',
    "",
    "é",
    "😀",
    "\uFEFF",
    "\uFEFFbom",
    "\u20AC",
    "plain ascii text",
    "\n",
    "\n\n",
  ];
  const bad = [new Uint8Array([0xc3]), new Uint8Array([0xff]), new Uint8Array([0xe2, 0x82])];
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const dir = await Deno.makeTempDir();
  try {
    for (let trial = 0; trial < 300; trial++) {
      const parts: Uint8Array[] = [];
      const count = next(40);
      for (let i = 0; i < count; i++) {
        parts.push(
          trial % 10 === 9 && next(20) === 0
            ? bad[next(bad.length)]
            : new TextEncoder().encode(pieces[next(pieces.length)]),
        );
        if (next(3) === 0) parts.push(new Uint8Array([10]));
      }
      const bytes = concatBytes([new Uint8Array(0), ...parts]);
      const path = join(dir, `f${trial}`);
      await Deno.writeFile(path, bytes);
      const want = expected(bytes);
      for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
        let got: string[] | "refused";
        try {
          got = await Array.fromAsync(fileLines(path, size));
        } catch (error) {
          assert.ok(error instanceof TypeError, String(error));
          got = "refused";
        }
        assert.deepEqual(got, want, `trial ${trial}, chunks of ${size}`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
