import assert from "node:assert/strict";
import { join } from "node:path";
import { blobRelativePath } from "../src/store/blob_store.ts";
import type { Manifest } from "../src/store/manifest.ts";
import { type Problem, verifyRun } from "../src/store/verify.ts";
import { runPipeline } from "./helpers/pipeline.ts";

async function mkfifo(path: string): Promise<void> {
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(out.success, "mkfifo works");
}

function show(problems: Problem[]): string {
  return problems.map((p) => `${p.phase} ${p.kind}: ${p.subject}: ${p.detail}`).join("\n");
}

Deno.test("the blob folders scanned by workers name every tampering exactly as a scan in one thread", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    await runPipeline({ output: run, stages: 60 });
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
    const blobs = [...new Set(manifest.nodes.flatMap((n) => Object.values(n.outputs)))].sort();
    const folders = new Set(blobs.map((b) => b.slice(0, 2)));
    assert.ok(folders.size >= 16, `enough blob folders for the workers (${folders.size})`);
    const clean = await verifyRun(run, { workers: 2 });
    assert.deepEqual(clean.problems, []);
    assert.equal(clean.blobs_checked, (await verifyRun(run, { workers: 0 })).blobs_checked);

    const path = (i: number) => join(run, blobRelativePath(blobs[i]));
    // altered (same size), FIFO, symlink, looping symlink, writable, hard link, stray files and folders.
    const bytes = await Deno.readFile(path(0));
    bytes[0] ^= 1;
    await Deno.chmod(path(0), 0o644);
    await Deno.writeFile(path(0), bytes);
    await Deno.chmod(path(0), 0o444);
    await Deno.remove(path(1));
    await mkfifo(path(1));
    await Deno.copyFile(path(2), join(dir, "outside"));
    await Deno.remove(path(2));
    await Deno.symlink(join(dir, "outside"), path(2));
    await Deno.remove(path(3));
    await Deno.symlink(path(3), path(3));
    await Deno.chmod(path(4), 0o644);
    await Deno.copyFile(path(5), join(dir, "outside-5"));
    await Deno.remove(path(5));
    await Deno.link(join(dir, "outside-5"), path(5));
    await Deno.writeTextFile(join(run, "objects", "sha256", blobs[6].slice(0, 2), "stray"), "x");
    await Deno.mkdir(join(run, "objects", "sha256", blobs[7].slice(0, 2), "sub"));
    await Deno.writeTextFile(join(run, "objects", "sha256", blobs[7].slice(0, 2), "sub", "f"), "y");
    await Deno.remove(path(8));

    const inThread = await verifyRun(run, { workers: 0 });
    const pooled = await verifyRun(run, { workers: 2 });
    assert.equal(show(pooled.problems), show(inThread.problems));
    assert.equal(pooled.blobs_checked, inThread.blobs_checked);
    assert.equal(pooled.bytes_checked, inThread.bytes_checked);
    const want: [string, string, RegExp][] = [
      ["altered", `blob ${blobs[0]}`, /content hashes to/],
      ["not_regular", `blob ${blobs[1]}`, /FIFO/],
      ["not_regular", `blob ${blobs[2]}`, /symlink .*outside/],
      ["not_regular", `blob ${blobs[3]}`, /symlink/],
      ["mode", `blob ${blobs[4]}`, /0644/],
      ["hard_link", blobRelativePath(blobs[5]), /2 hard links/],
      ["unknown_file", `objects/sha256/${blobs[6].slice(0, 2)}/stray`, /not a blob name/],
      ["unknown_file", `objects/sha256/${blobs[7].slice(0, 2)}/sub`, /neither a blob prefix/],
    ];
    for (const [kind, subject, detail] of want) {
      assert.ok(
        pooled.problems.some((p) => p.kind === kind && p.subject === subject && detail.test(p.detail)),
        `want ${kind}: ${subject}; got:\n${show(pooled.problems)}`,
      );
    }
    assert.ok(
      pooled.problems.some((p) => p.kind === "missing" && p.detail.includes(blobs[8])),
      `the deleted blob is missing; got:\n${show(pooled.problems)}`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a large run verifies when the scanning workers cannot start (read permission for the run only)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = join(dir, "run");
    await runPipeline({ output: run, stages: 60 });
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
    const blob = manifest.nodes.flatMap((n) => Object.values(n.outputs)).sort()[0];
    const bytes = await Deno.readFile(join(run, blobRelativePath(blob)));
    bytes[0] ^= 1;
    await Deno.chmod(join(run, blobRelativePath(blob)), 0o644);
    await Deno.writeFile(join(run, blobRelativePath(blob)), bytes);
    await Deno.chmod(join(run, blobRelativePath(blob)), 0o444);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", `--allow-read=${run}`, "--allow-env", "main.ts", "verify", run],
      cwd: new URL("..", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stdout + stderr);
    assert.match(stdout, new RegExp(`altered: blob ${blob}`));
    assert.doesNotMatch(stdout + stderr, /internal error|Uncaught/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
