import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CODE = /\.(ts|js|mjs|cjs|py|sh|json)$/;
// Built from parts so that this file does not match itself.
const OUTSIDE = new RegExp(["\\.\\.", "shared"].join("[\\\\/]+"));

async function* codeFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* codeFiles(path);
    else if (entry.isFile && CODE.test(entry.name)) yield path;
  }
}

Deno.test("no file under src/ or tests/ reads the shared folder beside the repository", async () => {
  const offenders: string[] = [];
  let scanned = 0;
  for (const top of ["src", "tests"]) {
    for await (const path of codeFiles(join(ROOT, top))) {
      scanned++;
      const text = await Deno.readTextFile(path);
      text.split("\n").forEach((line, i) => {
        if (OUTSIDE.test(line)) offenders.push(`${relative(ROOT, path)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.ok(scanned > 50, `scanned only ${scanned} files`);
  assert.deepEqual(offenders, [], `copy the data into tests/fixtures/ instead:\n${offenders.join("\n")}`);
});

Deno.test("the vendored real data matches its SHA256SUMS and names its licences", async () => {
  const dir = join(ROOT, "tests/fixtures/shared_data");
  const sums = (await Deno.readTextFile(join(dir, "SHA256SUMS"))).trim().split("\n");
  assert.equal(sums.length, 3);
  for (const line of sums) {
    const [hash, name] = line.split(/\s+/);
    const bytes = await Deno.readFile(join(dir, name));
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    assert.equal(Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""), hash, name);
  }
  const readme = await Deno.readTextFile(join(dir, "README.md"));
  assert.match(readme, /CC BY-SA 4\.0/);
  assert.match(readme, /MIT \(Nous Research\)/);
});
