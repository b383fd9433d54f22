/**
 * The launcher `./compaction-bench`: it execs main.ts on the pinned Deno (resolved once through npx, then
 * cached) with the single binary's permissions from any working directory, so every option reaches the
 * program, signals reach the run and the exit code is the program's; README's examples, every `--help` and
 * the hints spell it, and no README shell line says `deno run … main.ts`.
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

Deno.test("the launcher has the binary's permissions and execs the pinned Deno", async () => {
  const text = await Deno.readTextFile(LAUNCHER);
  assert.ok(((await Deno.stat(LAUNCHER)).mode! & 0o111) !== 0, "not executable");
  for (const flag of BINARY_PERMISSIONS) assert.ok(text.includes(flag), `missing ${flag}`);
  assert.doesNotMatch(text, /(^|\s)-A(\s|$)|--allow-all/);
  assert.match(text, /npx -y "deno@\$version" eval/);
  assert.doesNotMatch(text, /exec npx/, "npx would read options meant for the program (--env-file)");
  assert.match(text, /^exec "\$deno" run /m);
  assert.match(text, /^version=2\.9\.6$/m);
});

/** A folder with a fake `npx` that counts its calls and answers with the Deno running this test. */
async function fakeNpx(dir: string): Promise<{ bin: string; calls: () => Promise<number> }> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const log = join(dir, "npx-calls");
  await Deno.writeTextFile(
    join(bin, "npx"),
    `#!/bin/sh\necho "$*" >>'${log}'\necho 'npm notice: noise before the path'\necho '${Deno.execPath()}'\n`,
    { mode: 0o755 },
  );
  const calls = async () => {
    try {
      return (await Deno.readTextFile(log)).split("\n").filter((l) => l !== "").length;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return 0;
      throw error;
    }
  };
  return { bin, calls };
}

Deno.test("the launcher resolves the pinned Deno through npx once, caches the path, and says when it cannot", async () => {
  const dir = await Deno.makeTempDir({ prefix: "launcher_cache_" });
  try {
    const { bin, calls } = await fakeNpx(dir);
    // XDG_CACHE_HOME moves Deno's own cache too: DENO_DIR keeps this test on the one it has (offline).
    const home = Deno.env.get("HOME") ?? "/root";
    const denoDir = Deno.env.get("DENO_DIR") ??
      join(Deno.env.get("XDG_CACHE_HOME") ?? join(home, ".cache"), "deno");
    const env = {
      NO_COLOR: "1",
      PATH: `${bin}:/usr/bin:/bin`,
      XDG_CACHE_HOME: join(dir, "cache"),
      DENO_DIR: denoDir,
      COMPACTION_BENCH_DENO: "",
    };
    const start = async (args: string[], extra: Record<string, string> = {}) => {
      const o = await new Deno.Command(LAUNCHER, {
        args,
        cwd: dir,
        env: { ...env, ...extra },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const decode = (b: Uint8Array) => new TextDecoder().decode(b);
      return { code: o.code, stdout: decode(o.stdout), stderr: decode(o.stderr) };
    };
    for (let i = 0; i < 2; i++) {
      const v = await start(["--version"]);
      assert.equal(v.code, 0, v.stderr);
      assert.match(v.stdout, /^compaction-bench \d+\.\d+\.\d+/);
    }
    assert.equal(await calls(), 1, "npx is asked once; the second start reads the cached path");
    const cached = join(dir, "cache", "compaction-bench", "deno-2.9.6.path");
    assert.equal((await Deno.readTextFile(cached)).trim(), Deno.execPath());
    // A cached path that no longer exists (npx's cache was cleaned) is resolved again.
    await Deno.writeTextFile(cached, join(dir, "gone", "deno") + "\n");
    assert.equal((await start(["--version"])).code, 0);
    assert.equal(await calls(), 2);
    // No npx, no deno, nothing cached: exit 127, saying what to do.
    const failing = join(dir, "failing");
    await Deno.mkdir(failing);
    await Deno.writeTextFile(join(failing, "npx"), "#!/bin/sh\necho 'npm error network' >&2\nexit 1\n", {
      mode: 0o755,
    });
    const none = await start(["--version"], {
      PATH: `${failing}:/usr/bin:/bin`,
      XDG_CACHE_HOME: join(dir, "empty"),
    });
    assert.equal(none.code, 127, none.stderr);
    assert.match(none.stderr, /cannot find Deno 2\.9\.6 \(set COMPACTION_BENCH_DENO=PATH/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every option reaches the program: --env-file of a missing file is the program's exit 2", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "launcher_env_" });
  try {
    const out = await launch(["sweep", "run", "--live", "--env-file", join(cwd, "nope.env")], cwd);
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /^error: --env-file .*nope\.env: not found/m);
    assert.doesNotMatch(out.stderr, /^node:/m);
    assert.deepEqual([...Deno.readDirSync(cwd)], [], "nothing written");
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("SIGTERM to the launcher stops the run resumably and leaves no process; --resume finishes it", async () => {
  const cwd = await Deno.makeTempDir({ prefix: "launcher_term_" });
  try {
    const collect = await launch(["hotpot", "collect", "-q", "--questions", "4", "--output", "c"], cwd);
    assert.equal(collect.code, 0, collect.stderr);
    const run = join(cwd, "run");
    const child = new Deno.Command(LAUNCHER, {
      args: ["hotpot", "run", "--reference", "-q", "--reference-delay-ms", "200", "--corpus", "c/corpus.json"]
        .concat(["--output", "run"]),
      cwd,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", COMPACTION_BENCH_DENO: Deno.execPath() },
    }).spawn();
    // Polls the journal (no clock is asserted: the run is slowed so that it is still running when signalled).
    for (let i = 0; i < 600; i++) {
      const lines = await Deno.readTextFile(join(run, "journal.jsonl")).then((t) => t.split("\n").length)
        .catch((e) => e instanceof Deno.errors.NotFound ? 0 : Promise.reject(e));
      if (lines > 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGTERM");
    const done = await child.output();
    const stderr = new TextDecoder().decode(done.stderr);
    assert.equal(done.code, 143, stderr);
    assert.match(
      stderr,
      /interrupted \(SIGTERM\): .*continue it with: \.\/compaction-bench hotpot run --resume /,
    );
    // The launcher's pid was Deno's own (exec): nothing of it is left.
    const alive = await new Deno.Command("kill", { args: ["-0", String(child.pid)], stderr: "null" })
      .output();
    assert.equal(alive.success, false, "the launcher's process is gone");
    await assert.rejects(
      Deno.stat(join(run, "manifest.json")),
      Deno.errors.NotFound,
      "stopped before sealing",
    );
    const resumed = await launch(["hotpot", "run", "-q", "--resume", "run"], cwd);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal((await launch(["verify", "run"], cwd)).code, 0);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
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
