import assert from "node:assert/strict";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { assetPath } from "../src/assets.ts";
import { UsageError } from "../src/errors.ts";
import { checkSweepCase } from "../src/suites/sweep/case_checks.ts";
import { DEFAULT_SWEEP_TRAJECTORY, loadSweepCase, resolveSweepCase } from "../src/suites/sweep/fixture.ts";
import { hermesAgentArgv } from "../src/cli/hotpot/hermes_option.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { runCli } from "./helpers/spawn.ts";

const FLAKY = assetPath("fixtures/sweep-cases/flaky-test");
const PAYMENTS = assetPath("fixtures/sweep/payments");

async function brokenCopy(
  edit: (dir: string) => Promise<void>,
): Promise<{ dir: string; problems: string[] }> {
  const dir = await Deno.makeTempDir({ prefix: "sweep_case_" });
  for (const entry of Deno.readDirSync(FLAKY)) {
    await Deno.copyFile(join(FLAKY, entry.name), join(dir, entry.name));
  }
  await edit(dir);
  try {
    return { dir, problems: (await checkSweepCase(dir)).problems };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The fields of case.json the tests edit. */
interface CaseEdit {
  facts: { text: string }[];
  follow_up: string;
  units: { end: number }[];
  trajectory: { sha256: string };
}

async function editJson(dir: string, change: (json: CaseEdit) => void): Promise<void> {
  const path = join(dir, "case.json");
  const json = JSON.parse(await Deno.readTextFile(path));
  change(json);
  await Deno.writeTextFile(path, JSON.stringify(json, null, 2));
}

Deno.test("both shipped cases pass sweep case check", async () => {
  for (const dir of [PAYMENTS, FLAKY]) assert.deepEqual((await checkSweepCase(dir)).problems, [], dir);
});

Deno.test("sweep case check names a fact missing from its unit, with file, field and value", async () => {
  const { problems } = await brokenCopy((dir) => editJson(dir, (j) => j.facts[0].text += " XYZZY"));
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(
    problems[0],
    /case\.json field facts\.0\.text: "4817 XYZZY" does not occur verbatim in its unit u01/,
  );
});

Deno.test("sweep case check names a leaked fact (follow-up, system prompt)", async () => {
  const { problems } = await brokenCopy((dir) => editJson(dir, (j) => j.follow_up += "\nHint: FakeClock."));
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0], /facts\.5\.text: "FakeClock" leaks: the follow-up/);
});

Deno.test("sweep case check refuses units that do not tile a tool result", async () => {
  const { problems } = await brokenCopy((dir) => editJson(dir, (j) => j.units[0].end -= 1));
  assert.equal(problems.length, 1);
  assert.match(problems[0], /case\.json field units: unit u02: starts at \d+, expected \d+/);
});

Deno.test("sweep case check refuses a check that an empty repair passes, naming it", async () => {
  const { problems } = await brokenCopy(async (dir) => {
    const path = join(dir, "checks.js");
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace(
        'if (check.name === "exact_boundary") {',
        'if (check.name === "exact_boundary") { return { passed: true, detail: "always" };',
      ),
    );
  });
  assert.deepEqual(problems.map((p) => p.replace(/^.*checks\.js: /, "")), [
    "check exact_boundary passes an empty repair (a check that cannot fail)",
  ]);
});

Deno.test("sweep case check and --case refuse a trajectory whose pin differs", async () => {
  const { problems } = await brokenCopy((dir) => editJson(dir, (j) => j.trajectory.sha256 = "0".repeat(64)));
  assert.equal(problems.length, 1);
  assert.match(
    problems[0],
    /sha256 [0-9a-f]{64} is not the pin of case flaky-session-expiry-test .*trajectory\.sha256 is 0{64}/,
  );
});

Deno.test("--trajectory FILE runs the case whose pin matches; --case DIR loads the same case", async () => {
  const byFile = await resolveSweepCase({ trajectory: join(FLAKY, "trajectory.json") });
  const byDir = await loadSweepCase(FLAKY);
  assert.equal(byFile.caseId, byDir.caseId);
  assert.equal(byFile.name, "flaky-session-expiry-test");
  const payments = await resolveSweepCase({ trajectory: assetPath(DEFAULT_SWEEP_TRAJECTORY) });
  assert.equal(payments.hash, payments.trajectoryHash, "the payment case keeps its keys");
  const dir = await Deno.makeTempDir();
  try {
    const copy = join(dir, "t.json");
    await Deno.writeTextFile(
      copy,
      JSON.stringify(JSON.parse(await Deno.readTextFile(join(FLAKY, "trajectory.json")))),
    );
    await assert.rejects(() => resolveSweepCase({ trajectory: copy }), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /sha256 [0-9a-f]{64} is the pin of no sweep case/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the seeds' spellings: --hermes DIR is --agent exec: of the adapter; --tokenizer takes tokenizer.json", async () => {
  const hermes = await Deno.makeTempDir();
  try {
    const argv = await hermesAgentArgv([
      "--reference",
      "--hermes",
      hermes,
      "--hermes-python",
      "/usr/bin/python3",
    ]);
    assert.deepEqual(argv.slice(0, 2), ["--reference", "--agent"]);
    assert.equal(
      argv[2],
      `exec:'/usr/bin/python3' '${assetPath("adapters/hermes_collect.py")}' '--hermes' '${hermes}'`,
    );
    await assert.rejects(
      () => hermesAgentArgv(["--hermes-python", "py"]),
      /--hermes-python needs --hermes DIR/,
    );
    await assert.rejects(() => hermesAgentArgv(["--hermes", hermes, "--agent", "exec:x"]), /give one/);
  } finally {
    await Deno.remove(hermes, { recursive: true });
  }
  const dir = assetPath("fixtures/tokenizers/qwen3");
  assert.equal(
    (await loadTokenCounter(join(dir, "tokenizer.json"))).hash,
    (await loadTokenCounter(dir)).hash,
  );
  await assert.rejects(
    () => loadTokenCounter(join(dir, "tokenizer_config.json")),
    /a file must be a tokenizer\.json/,
  );
});

Deno.test("a second case runs end to end and verifies; its run keeps the checkout's sources; a tampered source is named", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sweep_cases_run_" });
  try {
    const run = join(tmp, "run");
    const opts = ["--reference", "-q", "--compressions", "1", "--answers", "1", "--top-n", "1"];
    const made = await runCli(["sweep", "run", ...opts, "--case", FLAKY, "--output", run]);
    assert.equal(made.code, 0, made.stderr);
    const results = JSON.parse(await Deno.readTextFile(join(run, "protocol.json")));
    assert.equal(results.fixture.name, "flaky-session-expiry-test");
    assert.equal(results.fixture.checks, "checks.js");
    assert.equal((await runCli(["verify", run])).code, 0);
    const out = join(tmp, "src");
    const extracted = await runCli(["source", run, "--extract", out]);
    assert.equal(extracted.code, 0, extracted.stderr);
    for (const file of ["src/store/hash.ts", "main.ts", "deno.lock", "adapters/hermes_collect.py"]) {
      assert.equal(await Deno.readTextFile(join(out, file)), await Deno.readTextFile(assetPath(file)), file);
    }
    const audit = async (...args: string[]) => {
      const out = await new Deno.Command("python3", {
        args: [assetPath("scripts/audit_run.py"), ...args, run],
      })
        .output();
      return { code: out.code, stdout: new TextDecoder().decode(out.stdout) };
    };
    const listed = await audit("--sources");
    assert.equal(listed.code, 0, listed.stdout);
    assert.match(listed.stdout, /^[0-9a-f]{64} +\d+ src\/store\/hash\.ts$/m);
    const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
    const hash: string = manifest.sources.program;
    const blob = join(run, "objects/sha256", hash.slice(0, 2), hash.slice(2));
    const text = new TextDecoder().decode(gunzipSync(await Deno.readFile(blob)));
    assert.ok(text.startsWith('{"format":"compaction-bench/program-source@2"'));
    await Deno.chmod(blob, 0o644);
    await Deno.writeFile(
      blob,
      gzipSync(
        new TextEncoder().encode(
          text.replace("export function canonicalHash", "export function canonicalHasH"),
        ),
      ),
    );
    await Deno.chmod(blob, 0o444);
    const verify = await runCli(["verify", run]);
    assert.equal(verify.code, 1);
    assert.match(verify.stdout, /program source file src\/store\/hash\.ts: changed/);
    const audited = await audit();
    assert.equal(audited.code, 1);
    assert.match(audited.stdout, /altered: program source file src\/store\/hash\.ts: changed/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("the adapter files an engine or agent uses are kept as run sources", async () => {
  const { adapterSources } = await import("../src/suites/run_command.ts");
  const lean = assetPath("adapters/lean_ctx.py");
  const collect = assetPath("adapters/hermes_collect.py");
  const sources = await adapterSources({
    engine: [`exec:python3 ${lean}`, "truncate"],
    method: [`mine=exec:python3 ${lean} --fast`],
    agent: `exec:'python3' '${collect}' '--hermes' '/nowhere'`,
  });
  assert.deepEqual(Object.keys(sources).sort(), [`adapter:${collect}`, `adapter:${lean}`]);
  assert.deepEqual(sources[`adapter:${lean}`], await Deno.readFile(lean));
  assert.deepEqual(await adapterSources({ engine: ["truncate"] }), {});
});

Deno.test("an adapter file that holds one of the run's keys is refused before anything is written", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "adapter_key_" });
  try {
    const key = "sk-test-0123456789abcdef";
    const script = join(tmp, "engine.py");
    await Deno.writeTextFile(
      script,
      `KEY = "${key}"\nimport sys, json\nprint(json.dumps(json.load(sys.stdin)))\n`,
    );
    const out = join(tmp, "run");
    const refused = await runCli(
      [
        "engines",
        "run",
        "--reference",
        "-q",
        "--no-qa",
        "--repeats",
        "1",
        "--turns",
        "40",
        "--engine",
        `exec:python3 ${script}`,
        "--output",
        out,
      ],
      { LLM_API_KEY: key },
    );
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /engine\.py: holds the value of LLM_API_KEY \(not shown\)/);
    assert.ok(!refused.stderr.includes(key));
    await assert.rejects(() => Deno.stat(out), Deno.errors.NotFound);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
