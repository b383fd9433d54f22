/**
 * Outside processes end with their call: an engine that forks a child holding stdout (and one that double
 * forks, also into a session of its own) ends its call when it exits, not at the time limit, and leaves
 * no process behind; it runs in a fresh temporary folder with TMPDIR inside it; a word naming a file
 * relative to this program's directory still finds it.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { createEngine } from "../src/methods/engines/create.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { sharedCounter } from "./engines_fixtures/models.ts";
import { sleepingWith, survivors } from "./helpers/processes.ts";

/** A python3 engine that forks per `mode`, writes its descendants' pids to `pids`, answers and exits. */
const FORKING_ENGINE = `
import json, os, sys
mode, pids, token = sys.argv[1], sys.argv[2], sys.argv[3]
req = json.load(sys.stdin)
def hold(w):
    # A descendant that notes it started, then keeps stdout and stderr open for a long time, the token in its
    # command line (the call may run in a PID namespace with a /proc of its own: its pid means nothing here).
    with open(os.path.join(pids, str(len(os.listdir(pids)))), "w") as f:
        f.write("")
    os.write(w, b"x")
    os.close(w)
    ${sleepingWith("TOKEN").replace('"TOKEN"', "token")}
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    if mode == "fork":
        hold(w)
    if mode == "double-setsid":
        os.setsid()
    if os.fork() == 0:
        hold(w)
    os._exit(0)
os.close(w)
os.read(r, 1)
if mode != "fork":
    os.waitpid(pid, 0)
json.dump({"messages": [{"role": "user", "content": "compacted"}]}, sys.stdout)
sys.stdout.flush()
`;

for (const mode of ["fork", "double", "double-setsid"]) {
  Deno.test(`an engine that ${mode === "fork" ? "forks a child" : `double forks${mode === "double-setsid" ? " into its own session" : ""}`} holding stdout ends its call when it exits and leaves no process behind`, async () => {
    const counter = await sharedCounter();
    const dir = await Deno.makeTempDir({ prefix: "forking_engine_" });
    const pids = join(dir, "pids");
    await Deno.mkdir(pids);
    const script = join(dir, "forking.py");
    const token = `cb-descendant-${crypto.randomUUID()}`;
    await Deno.writeTextFile(script, FORKING_ENGINE);
    try {
      const { messages } = generateTranscript({ turns: 8, needles: 1 });
      const [result] = await runEngines({
        messages,
        engines: [`exec:python3 ${script} ${mode} ${pids} ${token}`],
        repeats: 1,
        counter,
        timeoutMs: 8_000,
      });
      // Both calls ended when the direct child exited (not at the time limit: a time-out would fail the row);
      // how long a call takes is measured in bench/engines.ts, never asserted here.
      assert.equal(result.status, "ok", result.reason ?? "");
      assert.equal(result.latency_ms.warm.length, 1);
      const left = [];
      for await (const entry of Deno.readDir(pids)) left.push(entry.name);
      assert.equal(left.length, 2, "one descendant per call");
      assert.deepEqual(await survivors(token), [], "descendants outlived their call");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("an outside engine runs in a fresh temporary folder with TMPDIR inside it, removed afterwards; relative file words still resolve", async () => {
  const counter = await sharedCounter();
  const dir = await Deno.makeTempDir({ dir: Deno.cwd(), prefix: ".cb_where_" });
  const script = join(dir, "where.py");
  await Deno.writeTextFile(
    script,
    [
      "import json, os, sys",
      "json.load(sys.stdin)",
      'open(os.path.join(os.environ["TMPDIR"], "scratch"), "w").write("x")',
      'json.dump({"messages": [{"role": "user", "content": json.dumps([os.getcwd(), os.environ["TMPDIR"]])}]}, sys.stdout)',
    ].join("\n"),
  );
  try {
    // The script is named relative to this program's working directory.
    const engine = createEngine(`exec:python3 ${relative(Deno.cwd(), script)}`, { timeoutMs: 10_000 });
    const { messages } = await engine.compress([{ role: "user", content: "hi" }], {
      budgetTokens: 10,
      currentTokens: 10,
      counter,
    });
    const [cwd, tmp] = JSON.parse(messages[0].content!) as string[];
    assert.notEqual(cwd, Deno.cwd());
    assert.ok(tmp.startsWith(cwd + "/"), `TMPDIR ${tmp} is inside ${cwd}`);
    assert.equal(await Deno.stat(cwd).then(() => true, () => false), false, "the folder is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("when a run is interrupted (SIGINT) while an outside engine runs, the engine's processes end with it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "interrupted_engine_" });
  const pids = join(dir, "pids");
  await Deno.mkdir(pids);
  const script = join(dir, "slow.py");
  const token = `cb-interrupted-${crypto.randomUUID()}`;
  await Deno.writeTextFile(
    script,
    [
      "import json, os, sys, time",
      "json.load(sys.stdin)",
      // Each notes it started, then waits with the token in its command line.
      "def note(): open(os.path.join(" + JSON.stringify(pids) +
      ', str(os.getpid()) + "-" + str(time.time())), "w").close()',
      "if os.fork() == 0:",
      "    note()",
      "    " + sleepingWith(token),
      "note()",
      sleepingWith(token),
    ].join("\n"),
  );
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--unstable-worker-options",
        "main.ts",
        "engines",
        "run",
        "--reference",
        "-q",
        "--no-qa",
        "--repeats",
        "0",
        "--turns",
        "8",
        "--engine",
        `exec:python3 ${script}`,
        "--output",
        join(dir, "run"),
      ],
      cwd: new URL("../", import.meta.url).pathname,
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const started: string[] = [];
    for (let i = 0; i < 300 && started.length < 2; i++) {
      await new Promise((done) => setTimeout(done, 100));
      started.length = 0;
      for await (const entry of Deno.readDir(pids)) started.push(entry.name);
    }
    assert.equal(started.length, 2, "the engine and its child started");
    child.kill("SIGINT");
    const status = await child.status;
    await child.stderr.cancel();
    assert.equal(status.success, false);
    assert.deepEqual(await survivors(token), [], "processes outlived the interrupted run");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
