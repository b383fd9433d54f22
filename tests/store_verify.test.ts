import assert from "node:assert/strict";
import { join } from "node:path";
import { blobRelativePath, BlobStore } from "../src/store/blob_store.ts";
import { canonicalJson } from "../src/store/canonical.ts";
import { type Manifest, nodeKey } from "../src/store/manifest.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { type Problem, verifyRun } from "../src/store/verify.ts";
import { testHeader } from "./helpers/header.ts";
import { runPipeline } from "./helpers/pipeline.ts";
import { runCli } from "./helpers/spawn.ts";
import { flipByte, listTree } from "./helpers/tree.ts";

/** A fresh finished run of the test pipeline (4 derive stages, 2 of them with requests, a sum, results.json). */
async function finishedRun(): Promise<{ dir: string; run: string; manifest: Manifest }> {
  const dir = await Deno.makeTempDir();
  const run = join(dir, "run");
  await runPipeline({ output: run, stages: 4 });
  const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  return { dir, run, manifest };
}

function show(problems: Problem[]): string {
  return problems.map((p) => `${p.kind}: ${p.subject}: ${p.detail}`).join("\n");
}

async function blobHashes(run: string): Promise<string[]> {
  return (await listTree(run)).filter((p) => p.startsWith("objects/sha256/")).map((p) =>
    p.slice(15).replace("/", "")
  );
}

Deno.test("verify passes on a finished run and counts what it checked", async () => {
  const { dir, run } = await finishedRun();
  try {
    const report = await verifyRun(run);
    assert.deepEqual(report.problems, []);
    assert.equal(report.ok, true);
    assert.equal(report.nodes_checked, 5);
    assert.equal(report.blobs_checked, (await blobHashes(run)).length);
    assert.ok(report.blobs_checked >= 8);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a flipped byte in any blob is reported as altered, naming that blob", async () => {
  const { dir, run } = await finishedRun();
  try {
    const hashes = await blobHashes(run);
    for (const hash of hashes) {
      const path = join(run, blobRelativePath(hash));
      await flipByte(path, 7);
      const report = await verifyRun(run);
      assert.equal(report.ok, false, `flip in ${hash}`);
      assert.ok(
        report.problems.some((p) => p.kind === "altered" && p.subject === `blob ${hash}`),
        `altered blob ${hash} named:\n${show(report.problems)}`,
      );
      await flipByte(path, 7);
    }
    assert.equal((await verifyRun(run)).ok, true, "restoring every byte makes the run good again");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a deleted blob is reported as missing, naming the nodes and file that reference it", async () => {
  const { dir, run, manifest } = await finishedRun();
  try {
    const derive1 = manifest.nodes.find((n) => n.label === "derive 1")!;
    const output = derive1.outputs.value;
    await Deno.chmod(join(run, blobRelativePath(output)), 0o644);
    await Deno.remove(join(run, blobRelativePath(output)));
    const results = manifest.files["results.json"];
    await Deno.remove(join(run, blobRelativePath(results)));
    const report = await verifyRun(run);
    const missing = report.problems.filter((p) => p.kind === "missing");
    const text = show(missing);
    assert.ok(missing.some((p) => /derive 1/.test(p.subject) && /output value/.test(p.subject)), text);
    assert.ok(
      missing.some((p) => /sum/.test(p.subject) && /input d1/.test(p.subject) && p.detail.includes(output)),
      text,
    );
    assert.ok(missing.some((p) => p.subject === "file results.json" && p.detail.includes(results)), text);
    assert.equal(report.ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an edited manifest field is reported as a key mismatch and a manifest/journal difference, naming the node", async () => {
  const { dir, run, manifest } = await finishedRun();
  try {
    const index = manifest.nodes.findIndex((n) => n.label === "derive 2");
    (manifest.nodes[index].params as { i: number }).i = 99;
    await Deno.writeTextFile(join(run, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
    const report = await verifyRun(run);
    const text = show(report.problems);
    assert.ok(
      report.problems.some((p) =>
        p.kind === "key_mismatch" && p.subject.startsWith(`node #${index} derive 2`)
      ),
      text,
    );
    assert.ok(report.problems.some((p) => p.kind === "manifest" && p.subject.includes("derive 2")), text);
    assert.equal(report.ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an edited manifest field with a forged key is still caught against the journal", async () => {
  const { dir, run, manifest } = await finishedRun();
  try {
    const node = manifest.nodes.find((n) => n.label === "derive 3")!;
    node.params = { i: 42 };
    node.key = nodeKey(node.stage, node.version, node.params, node.inputs);
    await Deno.writeTextFile(join(run, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
    const report = await verifyRun(run);
    assert.ok(
      report.problems.some((p) => p.kind === "manifest" && p.subject.includes("derive 3")),
      show(report.problems),
    );
    assert.ok(report.problems.every((p) => p.kind !== "key_mismatch"), "the forged key itself is consistent");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an edited journal line is reported, naming the line", async () => {
  const { dir, run } = await finishedRun();
  try {
    const path = join(run, "journal.jsonl");
    const lines = (await Deno.readTextFile(path)).split("\n");
    // Line 3 is the node of "derive 1": change a value and keep the line canonical, so only the chain betrays it.
    const entry = JSON.parse(lines[2]);
    assert.equal(entry.node.label, "derive 1");
    entry.node.usage.input_tokens += 1;
    lines[2] = canonicalJson(entry);
    await Deno.writeTextFile(path, lines.join("\n"));
    const report = await verifyRun(run);
    const journal = report.problems.filter((p) => p.kind === "journal");
    assert.ok(
      journal.some((p) => /journal line 4: chain broken .*line 3/.test(p.detail)),
      show(report.problems),
    );
    assert.ok(journal.some((p) => /digest/.test(p.detail)), show(report.problems));
    assert.equal(report.ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a journal line edited out of canonical form is reported as that line", async () => {
  const { dir, run } = await finishedRun();
  try {
    const path = join(run, "journal.jsonl");
    const lines = (await Deno.readTextFile(path)).split("\n");
    lines[4] = lines[4].replace('{"node":', '{ "node":');
    await Deno.writeTextFile(path, lines.join("\n"));
    const report = await verifyRun(run);
    assert.ok(
      report.problems.some((p) =>
        p.kind === "journal" && p.detail.startsWith("journal line 5: not in canonical form")
      ),
      show(report.problems),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("extra files and unreferenced blobs are reported as unknown files", async () => {
  const { dir, run } = await finishedRun();
  try {
    await Deno.writeTextFile(join(run, "stray.txt"), "not part of the run\n");
    await Deno.mkdir(join(run, "extra"));
    await Deno.writeTextFile(join(run, "extra", "deep.bin"), "x");
    const orphan = await new BlobStore(run).putText("an orphan blob");
    const report = await verifyRun(run);
    const unknown = report.problems.filter((p) => p.kind === "unknown_file").map((p) => p.subject).sort();
    assert.deepEqual(unknown, ["extra/deep.bin", blobRelativePath(orphan), "stray.txt"].sort());
    assert.equal(report.ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an edited exported file is reported as a file mismatch", async () => {
  const { dir, run } = await finishedRun();
  try {
    await Deno.writeTextFile(join(run, "results.json"), "{}\n");
    const report = await verifyRun(run);
    assert.ok(
      report.problems.some((p) => p.kind === "file_mismatch" && p.subject === "file results.json"),
      show(report.problems),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("several problems at once are all reported", async () => {
  const { dir, run, manifest } = await finishedRun();
  try {
    const flipped = manifest.nodes.find((n) => n.label === "derive 0")!.outputs.value;
    await flipByte(join(run, blobRelativePath(flipped)));
    const deleted = manifest.nodes.find((n) => n.label === "derive 3")!.requests[0];
    await Deno.remove(join(run, blobRelativePath(deleted)));
    await Deno.writeTextFile(join(run, "stray.txt"), "x");
    const path = join(run, "journal.jsonl");
    await Deno.writeTextFile(path, (await Deno.readTextFile(path)).replace('"derive 2"', '"derive two"'));
    (manifest.nodes[1].params as { i: number }).i = 7;
    await Deno.writeTextFile(join(run, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
    const report = await verifyRun(run);
    const text = show(report.problems);
    const has = (kind: string, pattern: RegExp) =>
      assert.ok(
        report.problems.some((p) => p.kind === kind && pattern.test(`${p.subject}: ${p.detail}`)),
        text,
      );
    has("altered", new RegExp(`blob ${flipped}`));
    has("missing", /derive 3 .*request 0/);
    has("unknown_file", /^stray\.txt/);
    has("journal", /chain broken/);
    has("key_mismatch", /derive 1/);
    has("manifest", /derive 2/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an input produced by no node and declared as no source is dangling; a later producer is a cycle", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "run"), testHeader());
    const stray = await run.store.putJson({ from: "nowhere" });
    const late = await run.store.putJson({ from: "later" });
    const node = (label: string, inputs: Record<string, string>, outputs: Record<string, string>) => ({
      key: nodeKey("s", 1, { label }, inputs),
      label,
      stage: "s",
      version: 1,
      params: { label },
      inputs,
      outputs,
      requests: [],
      usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
      started: "2026-01-01T00:00:00.000Z",
      finished: "2026-01-01T00:00:00.000Z",
      status: "ok" as const,
    });
    await run.recordNode(node("first", { x: stray, y: late }, {}));
    await run.recordNode(node("second", {}, { out: late }));
    await run.finish();
    const report = await verifyRun(run.path);
    const text = show(report.problems);
    assert.ok(report.problems.some((p) => p.kind === "dangling" && /first .*input x/.test(p.subject)), text);
    assert.ok(report.problems.some((p) => p.kind === "cycle" && /first .*input y/.test(p.subject)), text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("verify through the CLI exits 0 on a good run, 1 on a damaged one and 2 on a missing directory", async () => {
  const { dir, run, manifest } = await finishedRun();
  try {
    const good = await runCli(["verify", run]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /ok: every check holds/);
    const json = await runCli(["verify", run, "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).ok, true);

    await flipByte(join(run, blobRelativePath(manifest.files["results.json"])));
    const damaged = await runCli(["verify", run]);
    assert.equal(damaged.code, 1, damaged.stderr);
    assert.match(damaged.stdout, new RegExp(`altered: blob ${manifest.files["results.json"]}`));

    const missing = await runCli(["verify", join(dir, "no-such-run")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no-such-run: not found/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
