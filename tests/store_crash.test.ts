import assert from "node:assert/strict";
import { join } from "node:path";
import { verifyRun } from "../src/store/verify.ts";
import { HANG_GUARD_MS, ROOT } from "./helpers/spawn.ts";
import { listTree } from "./helpers/tree.ts";

async function tempFiles(dir: string): Promise<string[]> {
  try {
    return (await listTree(join(dir, "objects", "tmp"))).map((name) => `objects/tmp/${name}`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

Deno.test("a process killed with SIGKILL while writing a 200 MB blob leaves no blob that verify accepts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Should the writer ever win the race and finish before the kill, try again in a fresh directory.
    let temps: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await Deno.remove(dir, { recursive: true });
      await Deno.mkdir(dir);
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "tests/helpers/write_big_blob.ts", dir, "200"],
        cwd: ROOT,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const deadline = Date.now() + HANG_GUARD_MS;
      temps = [];
      while (temps.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        temps = await tempFiles(dir);
      }
      try {
        child.kill("SIGKILL");
      } catch (error) {
        if (!(error instanceof TypeError)) throw error; // it had already exited
      }
      const status = await child.output();
      if (status.signal === "SIGKILL") break;
      assert.ok(status.success, new TextDecoder().decode(status.stderr));
      temps = [];
    }
    assert.equal(temps.length, 1, "the temp file of the blob appeared");

    const blobs = (await listTree(dir)).filter((p) => p.startsWith("objects/sha256/"));
    assert.deepEqual(blobs, [], "no file exists under a blob name");
    // The temp file is named after the hash the blob would have had; that name must not exist.
    const hash = temps[0].split("/").at(-1)!.split(".")[0];
    await assert.rejects(() => Deno.stat(join(dir, "objects/sha256", hash.slice(0, 2), hash.slice(2))));

    const report = await verifyRun(dir);
    assert.equal(report.ok, false);
    const leftover = report.problems.find((p) => p.kind === "unknown_file" && p.subject === temps[0]);
    assert.ok(leftover, `verify names the leftover temp file: ${JSON.stringify(report.problems)}`);
    assert.match(leftover.detail, /interrupted blob write/);
    assert.equal(report.blobs_checked, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
