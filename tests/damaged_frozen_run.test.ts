/**
 * A damaged frozen run (a summary blob altered, missing, a symlink, a FIFO or a huge sparse file under its name)
 * is refused with exit 2 naming the run's file, in bounded time and memory, never an internal error, and leaves
 * nothing behind: the new run's folder is gone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readManifest } from "../src/store/run_dir.ts";
import { blobRelativePath } from "../src/store/blob_store.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "damaged_frozen_" });
globalThis.addEventListener("unload", () => {
  new Deno.Command("chmod", { args: ["-R", "u+rwx", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
});

const corpus = join(dir, "collect", "corpus.json");
const first = join(dir, "first");
const setup = await runCli(["hotpot", "collect", "--questions", "2", "--output", join(dir, "collect"), "-q"]);
assert.equal(setup.code, 0, setup.stderr);
const made = await runCli(["hotpot", "run", "--corpus", corpus, "--reference", "--output", first, "-q"]);
assert.equal(made.code, 0, made.stderr);
const summary = (await readManifest(first)).nodes.find((node) => node.stage === "hotpot-summary")!;
const blob = Object.values(summary.outputs)[0];

/** A copy of the first run whose summary blob is replaced by what `damage` makes at its path. */
async function damaged(name: string, damage: (path: string) => Promise<void>): Promise<string> {
  const copy = join(dir, name);
  await new Deno.Command("cp", { args: ["-a", first, copy] }).output();
  await new Deno.Command("chmod", { args: ["-R", "u+w", copy] }).output();
  const path = join(copy, blobRelativePath(blob));
  await Deno.remove(path);
  await damage(path);
  return copy;
}

const CASES: [string, (path: string) => Promise<void>, RegExp][] = [
  ["altered", (path) => Deno.writeTextFile(path, "{}"), /altered \(content does not match its name\)/],
  ["missing", () => Promise.resolve(), /: missing/],
  [
    "symlink",
    (path) => Deno.symlink(join(dir, "collect", "corpus.json"), path),
    /is a symlink, not a regular file/,
  ],
  ["fifo", async (path) => {
    await new Deno.Command("mkfifo", { args: [path] }).output();
  }, /is a FIFO, not a regular file/],
  ["sparse", async (path) => {
    using file = await Deno.open(path, { write: true, create: true });
    await file.truncate(10 * 1024 ** 3);
  }, /too large \(10737418240 bytes/],
];

for (const [name, damage, reason] of CASES) {
  Deno.test(`a frozen run whose summary blob is ${name} is refused (exit 2, the file named) and leaves nothing`, async () => {
    const frozen = await damaged(`frozen-${name}`, damage);
    const out = join(dir, `rerun-${name}`);
    const result = await runCli([
      "hotpot",
      "run",
      "--corpus",
      corpus,
      "--reference",
      "--frozen-run",
      frozen,
      "--output",
      out,
      "-q",
    ]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`${frozen}/objects/sha256/${blob.slice(0, 2)}/${blob.slice(2)}`));
    assert.match(result.stderr, reason);
    assert.equal(await Deno.stat(out).then(() => true, () => false), false, "the new run's folder stayed");
  });
}

Deno.test("merge of shards one of which holds a FIFO under a blob's name is refused (exit 2, the file named) and leaves nothing", async () => {
  const shards = [join(dir, "shard-1"), join(dir, "shard-2")];
  for (const [index, shard] of shards.entries()) {
    const result = await runCli([
      "hotpot",
      "run",
      "--corpus",
      corpus,
      "--reference",
      "--shard",
      `${index + 1}/2`,
      "--output",
      shard,
      "-q",
    ]);
    assert.equal(result.code, 0, result.stderr);
  }
  await new Deno.Command("chmod", { args: ["-R", "u+w", shards[1]] }).output();
  const node = (await readManifest(shards[1])).nodes.find((n) => n.stage === "hotpot-summary")!;
  const hash = Object.values(node.outputs)[0];
  const path = join(shards[1], blobRelativePath(hash));
  await Deno.remove(path);
  await new Deno.Command("mkfifo", { args: [path] }).output();
  const out = join(dir, "merged");
  const result = await runCli(["merge", out, ...shards]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, new RegExp(`${path}: is a FIFO, not a regular file`));
  assert.equal(await Deno.stat(out).then(() => true, () => false), false, "the merged run's folder stayed");
});
