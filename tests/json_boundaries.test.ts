/**
 * Every input and peer is read by the one bounded JSON reader (src/core/json_read.ts), through the real CLI:
 * a corpus.json with two "questions" keys exits 2 (the run would have answered the first array while Python
 * and JSON.parse read the second); a question id `__proto__` is an ordinary id; a transcript nested 100,000
 * deep, or holding a lone surrogate, exits 2 naming the file and writes nothing; a Hermes session that is not
 * UTF-8 is refused naming the file (never read with U+FFFD); a provider replying 100,000-deep JSON, and an
 * outside engine printing it, fail their calls only: the run finishes and verifies.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "json_boundaries_" });
globalThis.addEventListener("unload", () => {
  new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).outputSync();
  Deno.removeSync(dir, { recursive: true });
});

const collected = await runCli(["hotpot", "collect", "--questions", "2", "--output", join(dir, "c"), "-q"]);
assert.equal(collected.code, 0, collected.stderr);
const corpusText = await Deno.readTextFile(join(dir, "c", "corpus.json"));
const DEEP = 100_000;

async function absent(path: string): Promise<void> {
  await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
}

Deno.test("a corpus.json with two questions keys exits 2 naming the file and the key", async () => {
  const path = join(dir, "dup.json");
  await Deno.writeTextFile(path, corpusText.trimEnd().slice(0, -1) + ', "questions": []}');
  const result = await runCli([
    "hotpot",
    "run",
    "--reference",
    "-q",
    "--corpus",
    path,
    "--output",
    join(dir, "d"),
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /dup\.json: not valid JSON \(duplicate key "questions" .* at \$\.questions\)/);
  await absent(join(dir, "d"));
});

Deno.test("a question id __proto__ is an ordinary id: answered, scored and verified", async () => {
  const corpus = JSON.parse(corpusText);
  const old: string = corpus.questions[0].id;
  corpus.questions[0].id = "__proto__";
  const gold = Object.fromEntries(
    Object.entries(corpus.gold).map(([id, labels]) => [id === old ? "__proto__" : id, labels]),
  );
  // JSON.stringify writes an own `__proto__` member as an ordinary key.
  const text = JSON.stringify({ ...corpus, gold }, null, 1);
  assert.ok(text.includes('"__proto__": {'));
  const path = join(dir, "proto.json");
  await Deno.writeTextFile(path, text);
  const run = join(dir, "proto");
  const result = await runCli([
    "hotpot",
    "run",
    "--reference",
    "-q",
    "--compressions",
    "1",
    "--answers",
    "1",
    "--corpus",
    path,
    "--output",
    run,
  ]);
  assert.equal(result.code, 0, result.stderr);
  const rows = JSON.parse(await Deno.readTextFile(join(run, "results.json"))) as { question_id?: string }[];
  assert.ok(JSON.stringify(rows).includes('"__proto__"'), "the __proto__ question has rows");
  assert.equal((await runCli(["verify", run])).code, 0);
});

Deno.test("a transcript nested 100,000 deep exits 2 naming the file and the path; nothing is written", async () => {
  const path = join(dir, "deep.json");
  await Deno.writeTextFile(
    path,
    '[{"role":"user","content":"hi","x":' + "[".repeat(DEEP) + "]".repeat(DEEP) + "}]",
  );
  const out = join(dir, "deep-run");
  const result = await runCli([
    "engines",
    "run",
    "--reference",
    "-q",
    "--no-qa",
    "--repeats",
    "1",
    "--engine",
    "truncate",
    "--transcript",
    path,
    "--output",
    out,
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /deep\.json: invalid JSON: nested deeper than 512 levels at \$\[0\]\.x\[0\]/);
  await absent(out);
});

Deno.test("a transcript with a lone surrogate exits 2 naming the file and the path", async () => {
  const path = join(dir, "surrogate.json");
  await Deno.writeTextFile(
    path,
    '[{"role":"user","content":"hi"},{"role":"assistant","content":"a\\ud800b"}]',
  );
  const out = join(dir, "surrogate-run");
  const result = await runCli([
    "engines",
    "run",
    "--reference",
    "-q",
    "--no-qa",
    "--repeats",
    "1",
    "--engine",
    "truncate",
    "--transcript",
    path,
    "--output",
    out,
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /surrogate\.json: .*\$\[1\]\.content.*lone surrogate/);
  await absent(out);
});

Deno.test("a Hermes session that is not UTF-8 is refused naming the file, not read with U+FFFD", async () => {
  const corpus = JSON.parse(corpusText) as { questions: { id: string }[] };
  const sessions = join(dir, "sessions");
  await Deno.mkdir(sessions);
  const id = corpus.questions[0].id;
  const bytes = new TextEncoder().encode('{"messages":[{"role":"user","content":"caf\u00e9"}]}');
  bytes[bytes.indexOf(0xc3)] = 0xff; // é's first byte: invalid UTF-8
  await Deno.writeFile(join(sessions, `${id}.json`), bytes);
  const out = join(dir, "hermes");
  const result = await runCli([
    "hotpot",
    "collect",
    "--hermes-sessions",
    sessions,
    "--questions",
    "2",
    "--output",
    out,
    "-q",
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.ok(result.stderr.includes(`${id}.json: not JSON (not valid UTF-8)`), result.stderr);
  await absent(out);
});

Deno.test("a provider replying JSON nested 100,000 deep fails its calls only: the run finishes and verifies", async () => {
  const deep = "[".repeat(DEEP) + "]".repeat(DEEP);
  let replies = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.body?.cancel();
    replies++;
    return new Response(`{"id":"x","choices":${deep}}`, { headers: { "content-type": "application/json" } });
  });
  const base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/v1`;
  const run = join(dir, "deep-provider");
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--unstable-worker-options",
        "main.ts",
        "hotpot",
        "run",
        "--live",
        "--max-retries",
        "0",
        "--compressions",
        "1",
        "--answers",
        "1",
        "--corpus",
        join(dir, "c", "corpus.json"),
        "--output",
        run,
        "-q",
      ],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
      env: {
        NO_COLOR: "1",
        LLM_API_KEY: "deep-test-key-0123456789",
        LLM_BASE_URL: base,
        DECISION_MODEL_API_KEY: "deep-test-key-0123456789",
        DECISION_MODEL_BASE_URL: base,
      },
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    // The run ends as a run whose calls failed (exit 1), never an internal error (exit 3).
    assert.equal(out.code, 1, stderr);
    assert.match(stdout, /^FAILED: \d+ provider or engine call\(s\) failed/m);
    assert.ok(replies > 0);
  } finally {
    await server.shutdown();
  }
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  const reasons = (manifest.nodes as { reason?: string }[]).map((n) => n.reason ?? "").join("\n");
  assert.match(reasons, /nested deeper than 512 levels/);
  assert.equal((await runCli(["verify", run])).code, 0);
});

Deno.test("an outside engine printing JSON nested 100,000 deep fails its node only; the run finishes", async () => {
  const script = join(dir, "deep_engine.py");
  await Deno.writeTextFile(
    script,
    `import sys\nsys.stdin.read()\nn = ${DEEP}\nsys.stdout.write('{"messages": ' + '[' * n + ']' * n + '}')\n`,
  );
  const out = join(dir, "deep-engine");
  const result = await runCli([
    "engines",
    "run",
    "--reference",
    "-q",
    "--no-qa",
    "--repeats",
    "1",
    "--engine",
    "truncate",
    "--engine",
    `exec:python3 ${script}`,
    "--output",
    out,
  ]);
  assert.notEqual(result.code, 3, result.stderr);
  assert.notEqual(result.code, 2, result.stderr);
  const manifest = JSON.parse(await Deno.readTextFile(join(out, "manifest.json")));
  const reasons = (manifest.nodes as { reason?: string }[]).map((n) => n.reason ?? "").join("\n");
  assert.match(reasons, /nested deeper than 512 levels/);
  assert.equal((await runCli(["verify", out])).code, 0);
});

Deno.test("a journal line nested 100,000 deep is named by verify and the auditor, without a traceback", async () => {
  const copy = join(dir, "deep-journal");
  const copied = await new Deno.Command("cp", { args: ["-a", join(dir, "c"), copy] }).output();
  assert.ok(copied.success);
  const journalPath = join(copy, "journal.jsonl");
  const lines = (await Deno.readTextFile(journalPath)).split("\n").filter((l) => l !== "");
  const at = lines.findIndex((l) => l.includes('"type":"node"'));
  lines[at] = lines[at].replace('"params":', `"deep":${"[".repeat(DEEP)}${"]".repeat(DEEP)},"params":`);
  for (let i = at + 1; i < lines.length; i++) {
    const hash = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(lines[i - 1]))),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    lines[i] = lines[i].replace(/"prev":"[0-9a-f]{64}"/, `"prev":"${hash}"`);
  }
  await Deno.chmod(journalPath, 0o644);
  await Deno.writeTextFile(journalPath, lines.map((l) => l + "\n").join(""));
  const verified = await runCli(["verify", copy]);
  assert.equal(verified.code, 1, verified.stdout + verified.stderr);
  assert.match(
    verified.stdout,
    new RegExp(`journal line ${at + 1}: not JSON \\(nested deeper than 512 levels`),
  );
  const audit = await new Deno.Command("python3", {
    args: [join(ROOT, "scripts", "audit_run.py"), copy],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(audit.stdout);
  const stderr = new TextDecoder().decode(audit.stderr);
  assert.equal(audit.code, 1, stderr);
  assert.match(stdout, new RegExp(`line ${at + 1}: not JSON \\(nested deeper than 512 levels\\)`));
  assert.doesNotMatch(stderr, /Traceback|RecursionError/);
});

Deno.test("the auditor refuses a journal line with a duplicate key, as verify does", async () => {
  const copy = join(dir, "dup-journal");
  const copied = await new Deno.Command("cp", { args: ["-a", join(dir, "c"), copy] }).output();
  assert.ok(copied.success);
  const journalPath = join(copy, "journal.jsonl");
  const lines = (await Deno.readTextFile(journalPath)).split("\n").filter((l) => l !== "");
  const at = lines.findIndex((l) => l.includes('"type":"node"'));
  lines[at] = lines[at].replace('"label":', '"label":"forged","label":');
  await Deno.chmod(journalPath, 0o644);
  await Deno.writeTextFile(journalPath, lines.map((l) => l + "\n").join(""));
  const verified = await runCli(["verify", copy]);
  assert.match(verified.stdout, new RegExp(`journal line ${at + 1}: not JSON \\(duplicate key "label"`));
  const audit = await new Deno.Command("python3", {
    args: [join(ROOT, "scripts", "audit_run.py"), copy],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.match(
    new TextDecoder().decode(audit.stdout),
    new RegExp(`line ${at + 1}: not JSON \\(duplicate key "label"`),
  );
});

Deno.test("hotpot score of a prediction file nested 100,000 deep exits 2 naming the file and the path", async () => {
  const path = join(dir, "deep_pred.json");
  await Deno.writeTextFile(path, '{"answer":{},"sp":{"q":' + "[".repeat(DEEP) + "]".repeat(DEEP) + "}}");
  const result = await runCli([
    "hotpot",
    "score",
    "--gold",
    join(ROOT, "fixtures", "hotpot", "demo.json"),
    "--pred",
    path,
  ]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /--pred .*deep_pred\.json: not valid JSON \(nested deeper than 512 levels at \$\.sp\.q/,
  );
});
