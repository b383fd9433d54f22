/**
 * `verify` of an auditor's copy: a run packed with tar or zip and unpacked (real `tar`, Python's zipfile,
 * which drops modes) verifies; its lost read-only modes are one note, not problems, unless `--strict-modes`
 * (a blob made writable beside read-only ones is a problem);
 * content stays strict (a tampered blob in such a copy fails); the writer's own check keeps strict modes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { blobRelativePath } from "../src/store/blob_store.ts";
import type { Manifest } from "../src/store/manifest.ts";
import { verifyRun } from "../src/store/verify.ts";
import { runPipeline } from "./helpers/pipeline.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

async function run(cmd: string, args: string[], cwd?: string): Promise<{ code: number; out: string }> {
  const o = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const d = new TextDecoder();
  return { code: o.code, out: d.decode(o.stdout) + d.decode(o.stderr) };
}

/** A zip round trip with Python's zipfile (as `shutil.make_archive`/`unpack_archive`: modes are not restored). */
async function zipRoundTrip(from: string, to: string): Promise<void> {
  const script = "import shutil,sys\nshutil.make_archive(sys.argv[2], 'zip', sys.argv[1])\n" +
    "shutil.unpack_archive(sys.argv[2] + '.zip', sys.argv[3])";
  const out = await run("python3", ["-c", script, from, `${to}-archive`, to]);
  assert.equal(out.code, 0, out.out);
}

Deno.test("a run copied through zip or tar verifies; lost modes are one note; a tampered blob still fails", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const original = join(dir, "run");
    await runPipeline({ output: original, stages: 4 });
    const manifest: Manifest = JSON.parse(await Deno.readTextFile(join(original, "manifest.json")));
    const blob = Object.values(manifest.nodes[1].outputs)[0];

    const zipped = join(dir, "zipped");
    await zipRoundTrip(original, zipped);
    const mode = (await Deno.stat(join(zipped, blobRelativePath(blob)))).mode! & 0o777;
    assert.notEqual(mode, 0o444, "the zip round trip lost the read-only mode (what this test is about)");
    const lenient = await runCli(["verify", zipped]);
    assert.equal(lenient.code, 0, lenient.stdout);
    const notes = lenient.stdout.split("\n").filter((l) => l.startsWith("note: "));
    assert.equal(notes.length, 1, lenient.stdout);
    assert.match(
      notes[0],
      /blob\(s\) are not read-only \(mode 0\d{3}, the writer's is 0444\).*--strict-modes/,
    );
    assert.match(lenient.stdout, /^ok: every check holds$/m);
    const json = JSON.parse((await runCli(["verify", "--json", zipped])).stdout);
    assert.deepEqual([json.ok, json.problems, json.notes.length], [true, [], 1]);

    const strict = await runCli(["verify", "--strict-modes", zipped]);
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, new RegExp(`^  mode: blob ${blob}: mode 0\\d{3}, want 0444`, "m"));
    assert.equal(
      (await verifyRun(zipped)).ok,
      false,
      "the writer's check (verifyRun's default) keeps strict modes",
    );

    // The independent auditor agrees (this test pipeline's results.json is no node output: its one problem).
    const auditor = await run("python3", [join(ROOT, "scripts", "audit_run.py"), zipped]);
    assert.match(auditor.out, /^note: \d+ of \d+ blob\(s\) are not read-only/m);
    assert.doesNotMatch(auditor.out, /^mode: /m);
    const auditorStrict = await run("python3", [
      join(ROOT, "scripts", "audit_run.py"),
      "--strict-modes",
      zipped,
    ]);
    assert.match(auditorStrict.out, new RegExp(`^mode: blob ${blob}: `, "m"));

    // tar (GNU tar, as a user would: pack, unpack elsewhere)
    const tarred = join(dir, "tarred");
    await Deno.mkdir(tarred);
    assert.equal((await run("tar", ["-C", original, "-cf", join(dir, "run.tar"), "."])).code, 0);
    assert.equal((await run("tar", ["-C", tarred, "-xf", join(dir, "run.tar")])).code, 0);
    const fromTar = await runCli(["verify", tarred]);
    assert.equal(fromTar.code, 0, fromTar.stdout);
    // One blob made writable beside read-only ones is no copy's doing: a problem without --strict-modes too.
    await Deno.chmod(join(tarred, blobRelativePath(blob)), 0o644);
    const one = await runCli(["verify", tarred]);
    assert.equal(one.code, 1, one.stdout);
    assert.match(
      one.stdout,
      new RegExp(`^  mode: blob ${blob}: mode 0644, want 0444 .*not a copy's lost modes`, "m"),
    );
    await Deno.chmod(join(tarred, blobRelativePath(blob)), 0o444);
    // Every blob made writable well after its content was written (`cp -a` then `chmod -R u+w`: its status
    // changed after its bytes) is no copy's doing either.
    const chmodded = join(dir, "chmodded");
    assert.equal((await run("cp", ["-a", tarred, chmodded])).code, 0);
    const hour = new Date(Date.now() - 3_600_000);
    for (const entry of Deno.readDirSync(join(chmodded, "objects", "sha256"))) {
      for (const file of Deno.readDirSync(join(chmodded, "objects", "sha256", entry.name))) {
        const path = join(chmodded, "objects", "sha256", entry.name, file.name);
        await Deno.utime(path, hour, hour);
        await Deno.chmod(path, 0o644);
      }
    }
    const later = await runCli(["verify", chmodded]);
    assert.equal(later.code, 1, later.stdout);
    assert.match(
      later.stdout,
      /mode 0644, want 0444 \(read-only\) \(made writable after its content was written/,
    );
    const laterAudit = await run("python3", [join(ROOT, "scripts", "audit_run.py"), chmodded]);
    assert.match(laterAudit.out, /^mode: blob .* \(made writable after its content was written/m);
    await Deno.remove(chmodded, { recursive: true });

    // Content stays strict in a copy: one appended byte fails it, in a folder of runs too.
    await Deno.writeTextFile(join(zipped, blobRelativePath(blob)), "x", { append: true });
    const tampered = await runCli(["verify", zipped]);
    assert.equal(tampered.code, 1, tampered.stdout);
    assert.match(tampered.stdout, new RegExp(`^  altered: blob ${blob}: `, "m"));
    const folder = await runCli(["verify", dir]);
    assert.equal(folder.code, 1, folder.stdout);
    assert.match(folder.stdout, /^FAILED {2}zipped: /m);
    assert.match(folder.stdout, /^ok {6}tarred: /m);
    assert.match(folder.stdout, /^ {2}note: \d+ of \d+ blob\(s\) are not read-only/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
