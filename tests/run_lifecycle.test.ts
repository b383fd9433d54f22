/**
 * The recorded invocation is the same for every suite and never holds `--env-file`, its path, `--resume` or a
 * secret: checked on the function every suite records through, and on real run headers of all three suites.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { recordedCommand, recordedOptions } from "../src/cli/run_setup.ts";
import { noteText, retriedLine } from "../src/cli/run_printer.ts";
import type { Suite } from "../src/suites/suite.ts";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { testCounter } from "./models_support.ts";
import { runCli } from "./helpers/spawn.ts";

Deno.test("the recorded command drops --env-file and --resume with their values, in both spellings", () => {
  const argv = [
    "--env-file",
    "/home/me/.env",
    "--reference",
    "--env-file=/home/me/other.env",
    "--resume",
    "runs/x",
    "--resume=runs/y",
    "--model",
    "m-1",
    "--output",
    "runs/z",
  ];
  assert.deepEqual(recordedCommand(["sweep", "run"], argv), [
    "sweep",
    "run",
    "--reference",
    "--model",
    "m-1",
    "--output",
    "runs/z",
  ]);
  assert.deepEqual(
    recordedOptions({
      "env-file": "/home/me/.env",
      resume: "runs/x",
      help: false,
      reference: true,
      quiet: undefined,
    }),
    { reference: true },
  );
});

Deno.test("every suite records its invocation without the --env-file path", async () => {
  const dir = await Deno.makeTempDir({ prefix: "run_lifecycle_" });
  // --env-file is only taken with --live: the live endpoints are the program's own reference model.
  const server = await startReferenceServer({ counter: await testCounter() });
  try {
    const envFile = join(dir, "creds.env");
    await Deno.writeTextFile(
      envFile,
      `LLM_API_KEY=sk-not-used\nLLM_BASE_URL=${server.baseUrl}\n` +
        `DECISION_MODEL_API_KEY=dm-not-used\nDECISION_MODEL_BASE_URL=${server.baseUrl}\n`,
    );
    const runs: [string, string[]][] = [
      ["collect", ["hotpot", "collect", "--questions", "2"]],
      ["engines", ["engines", "run", "--live", "--engine", "truncate", "--turns", "20", "--no-qa"]],
    ];
    for (const [name, words] of runs) {
      const out = join(dir, name);
      const result = await runCli([...words, "--env-file", envFile, "--output", out, "-q"]);
      assert.equal(result.code, 0, result.stderr);
      const header = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
      const recorded = JSON.stringify(header.invocation);
      assert.ok(!recorded.includes(envFile) && !recorded.includes("env-file"), `${name}: ${recorded}`);
      assert.deepEqual(header.invocation.command.slice(0, 2), words.slice(0, 2));
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the life cycle hands its notes to the CLI as data, and the CLI words them", () => {
  const sweep = { command: ["sweep", "run"], resumable: true };
  assert.equal(
    noteText({ kind: "resumed", path: "runs/x", nodes: 12 }),
    "resuming runs/x: 12 completed node(s) in the journal",
  );
  assert.equal(
    noteText({ kind: "retrying", from: "runs/f", failed: 3 }),
    "retrying runs/f: its 3 failed node(s) and what depends on them are executed again; every node it " +
      "finished ok is reused",
  );
  assert.equal(noteText({ kind: "took-over", pid: 42 }), "took over the lock of process 42, which died");
  assert.match(
    noteText({ kind: "interrupted", suite: sweep as unknown as Suite, path: "runs/x" }),
    /^run interrupted; continue it with: .*sweep run --resume runs\/x$/,
  );
  assert.equal(
    noteText({ kind: "interrupted", suite: undefined, path: "runs/x" }),
    "run interrupted; start it again",
  );
  assert.equal(
    retriedLine({ from: "runs/f", failed: 3, executed: 5, sameKey: 3, reused: 40 }),
    "retried 3 failed node(s) of runs/f: 5 node(s) executed (3 with the same key, the rest with new inputs), " +
      "40 reused from it",
  );
});
