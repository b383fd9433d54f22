/**
 * The launcher `./compaction-bench`: it runs main.ts with the single binary's permissions from any working
 * directory, forwarding its arguments and exit code; README's examples, every `--help` and the hints spell
 * it, and no README shell line says `deno run … main.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BINARY_PERMISSIONS } from "../scripts/compile.ts";
import { ROOT } from "./helpers/spawn.ts";

const LAUNCHER = join(ROOT, "compaction-bench");

async function launch(args: string[], cwd: string) {
  const output = await new Deno.Command(LAUNCHER, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    // The pinned Deno running this test, instead of npx (the same version; no registry round trip).
    env: { NO_COLOR: "1", COMPACTION_BENCH_DENO: Deno.execPath() },
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("the launcher has the binary's permissions and runs the pinned Deno through npx", async () => {
  const text = await Deno.readTextFile(LAUNCHER);
  assert.ok(((await Deno.stat(LAUNCHER)).mode! & 0o111) !== 0, "not executable");
  for (const flag of BINARY_PERMISSIONS) assert.ok(text.includes(flag), `missing ${flag}`);
  assert.doesNotMatch(text, /(^|\s)-A(\s|$)|--allow-all/);
  assert.match(text, /exec npx -y "deno@\$version"/);
  assert.match(text, /^version=2\.9\.6$/m);
});

Deno.test("the launcher works from another directory, forwarding arguments and the exit code", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "launcher_" });
  try {
    const version = await launch(["--version"], cwd);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^compaction-bench \d+\.\d+\.\d+/);
    const help = await launch(["hotpot", "run", "--help"], cwd);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^\.\/compaction-bench hotpot run --corpus FILE/);
    const typo = await launch(["verify", "--jsn", "x"], cwd);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /did you mean --json\? \(see '\.\/compaction-bench verify --help'\)/);
    assert.deepEqual([...Deno.readDirSync(cwd)], []);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("README's shell lines use the launcher, never deno run main.ts", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const blocks = [...readme.matchAll(/```(?:sh|bash|shell|console)\n([\s\S]*?)```/g)].map((m) => m[1]);
  const lines = blocks.flatMap((b) => b.split("\n")).map((l) => l.trim()).filter((l) =>
    l && !l.startsWith("#")
  );
  assert.ok(lines.filter((l) => l.startsWith("./compaction-bench ")).length >= 10);
  for (const line of lines) assert.doesNotMatch(line, /deno run .*main\.ts/, line);
  assert.doesNotMatch(readme, /deno run -A main\.ts/);
});
