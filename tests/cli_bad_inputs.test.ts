/**
 * Every class of bad input, through the real CLI in a subprocess: a directory where a file is expected and
 * the reverse, symbolic link loops, FIFOs and devices given as files, missing paths and paths below a file,
 * outputs that exist or cannot be created, numbers over their documented maximum, contradicting or ignored
 * options, stray arguments, empty or duplicate selections, a looping chat template, a malformed env file.
 * Each case must exit 2 with exactly one line on stderr naming the path or option and the cause, print no
 * stack trace, never hang, and write nothing (no output path, inputs unchanged).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import pLimit from "p-limit";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { loadHotpot } from "../src/data/hotpot_load.ts";
import { toOfficialHotpotJson } from "../src/data/hotpot_json.ts";
import { assetPath } from "../src/assets.ts";
import { ROOT } from "./helpers/spawn.ts";

const tmp = await Deno.makeTempDir({ prefix: "cli_bad_inputs_" });
globalThis.addEventListener("unload", () => Deno.removeSync(tmp, { recursive: true }));
const I = join(tmp, "in");
const OUT = join(tmp, "out");

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs the CLI with a hard time limit, so a case that would block (a FIFO) fails instead of hanging; with all
 * permissions unless `permissions` are given.
 */
async function cli(args: string[], permissions = ["-A"], timeoutMs = 90_000): Promise<Ran> {
  const signal = AbortSignal.timeout(timeoutMs);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, "--unstable-worker-options", "main.ts", ...args],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
    signal,
  }).spawn();
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    timedOut: signal.aborted,
  };
}

/** Names, kinds, sizes and mtimes under `dir` (never reading file contents: some inputs are FIFOs). */
async function listing(dir: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (path: string, rel: string) => {
    const info = await Deno.lstat(path);
    lines.push(
      `${rel} ${info.isDirectory ? "d" : info.isSymlink ? "l" : "f"} ${info.size} ${info.mtime?.getTime()}`,
    );
    if (info.isDirectory) {
      for await (const entry of Deno.readDir(path)) {
        await walk(join(path, entry.name), `${rel}/${entry.name}`);
      }
    }
  };
  await walk(dir, ".");
  return lines.sort();
}

// ---- inputs -------------------------------------------------------------------------------------------
await Deno.mkdir(I);
for (const d of ["adir", "adir.json", "adir.parquet", "no_sessions"]) await Deno.mkdir(join(I, d));
await Deno.symlink("loopB.json", join(I, "loopA.json"));
await Deno.symlink("loopA.json", join(I, "loopB.json"));
await Deno.symlink("/dev/zero", join(I, "zero.json"));
const fifo = await new Deno.Command("mkfifo", { args: [join(I, "fifo.json")] }).output();
assert.equal(fifo.code, 0, "mkfifo");
await Deno.writeTextFile(join(I, "file"), "{}\n");
await Deno.writeTextFile(join(I, "empty_msgs.json"), '{"messages": []}\n');
await Deno.writeTextFile(join(I, "msgs.json"), '[{"role": "user", "content": "hello"}]\n');
const SECRET = "sk-this-must-never-be-printed-0123456789";
await Deno.writeTextFile(
  join(I, "bad.env"),
  `# credentials\nLLM_BASE_URL=http://127.0.0.1:9/v1\n${SECRET}\n`,
);
const demo = await loadHotpot(assetPath("fixtures/hotpot/demo.parquet"));
await Deno.writeTextFile(join(I, "gold.json"), JSON.stringify(toOfficialHotpotJson(demo.slice(0, 3))));
await Deno.writeTextFile(join(I, "empty_gold.json"), "[]");
await Deno.writeTextFile(join(I, "pred_nomatch.json"), JSON.stringify({ answer: { nope: "x" }, sp: {} }));
// A tokenizer directory whose chat template never finishes: the real tokenizer with a hostile template.
for (
  const [name, template] of [
    ["tok_loop", "{% for i in range(1000000000) %}x{% endfor %}"],
    ["tok_nested", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"],
    [
      "tok_grow",
      "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
    ],
  ]
) {
  await Deno.mkdir(join(I, name));
  await Deno.copyFile(join(DEFAULT_TOKENIZER_DIR, "tokenizer.json"), join(I, name, "tokenizer.json"));
  const config = JSON.parse(await Deno.readTextFile(join(DEFAULT_TOKENIZER_DIR, "tokenizer_config.json")));
  config.chat_template = template;
  await Deno.writeTextFile(join(I, name, "tokenizer_config.json"), JSON.stringify(config));
}

// A real corpus (and finished run) to point at; and corpora with duplicate ids and with no questions.
const runs = join(tmp, "runs");
const collectRun = join(runs, "collect");
const collected = await cli(["hotpot", "collect", "--questions", "2", "--output", collectRun, "-q"]);
assert.equal(collected.code, 0, collected.stderr);
const C = join(collectRun, "corpus.json");
const corpus = JSON.parse(await Deno.readTextFile(C));
await Deno.writeTextFile(
  join(I, "dup_ids.json"),
  JSON.stringify({ ...corpus, questions: [...corpus.questions, corpus.questions[0]] }),
);
await Deno.writeTextFile(join(I, "no_questions.json"), JSON.stringify({ ...corpus, questions: [] }));

// ---- the table ------------------------------------------------------------------------------------------
/** One bad input: the arguments (`$I` = inputs, `$O` = an output path that must not appear) and what stderr names. */
type Case = [args: string, names: RegExp];
const CASES: Case[] = [
  // a directory where a file is expected
  [
    "hotpot collect --scripted --dataset $I/adir.json --output $O",
    /--dataset .*adir\.json: is a directory, expected a file/,
  ],
  [
    "hotpot collect --scripted --dataset $I/adir.parquet --output $O",
    /--dataset .*adir\.parquet: is a directory/,
  ],
  ["hotpot run --reference --corpus $I/adir --output $O", /--corpus .*adir: is a directory/],
  ["hotpot score --gold $I/adir.json --pred $I/file", /--gold .*adir\.json: is a directory/],
  ["hotpot score --gold $I/gold.json --pred $I/adir", /--pred .*adir: is a directory/],
  ["sweep run --reference --trajectory $I/adir --output $O", /--trajectory .*adir: is a directory/],
  ["engines run --reference --transcript $I/adir --output $O", /--transcript .*adir: is a directory/],
  ["tokens $I/adir", /adir: is a directory/],
  // a file where a directory is expected
  [
    "hotpot run --reference --corpus $C --frozen-run $I/file --output $O",
    /--frozen-run .*file: is a file, expected a directory/,
  ],
  [
    "hotpot run --reference --corpus $C --tokenizer $I/file --output $O",
    /--tokenizer .*file: a file must be a tokenizer\.json \(with tokenizer_config\.json beside it\)/,
  ],
  ["sweep run --resume $I/file", /--resume .*file: is a file, expected a directory/],
  [
    "hotpot collect --hermes-sessions $I/file --output $O",
    /--hermes-sessions .*file: is a file, expected a directory/,
  ],
  ["verify $I/file", /file: is a file, expected a directory/],
  ["compare $RUN $I/file", /file: is a file, expected a directory/],
  // symbolic link loops
  [
    "hotpot collect --scripted --dataset $I/loopA.json --output $O",
    /--dataset .*loopA\.json: symbolic link loop/,
  ],
  ["hotpot run --reference --corpus $I/loopA.json --output $O", /--corpus .*loopA\.json: symbolic link loop/],
  ["hotpot score --gold $I/loopA.json --pred $I/file", /--gold .*loopA\.json: symbolic link loop/],
  [
    "engines run --reference --transcript $I/loopA.json --output $O",
    /--transcript .*loopA\.json: symbolic link loop/,
  ],
  ["tokens $I/loopA.json", /loopA\.json: symbolic link loop/],
  ["verify $I/loopA.json", /loopA\.json: symbolic link loop/],
  // FIFOs and devices are refused before they are opened (never block)
  ["hotpot collect --scripted --dataset $I/fifo.json --output $O", /--dataset .*fifo\.json: is a FIFO/],
  ["hotpot run --reference --corpus $I/fifo.json --output $O", /--corpus .*fifo\.json: is a FIFO/],
  ["sweep run --reference --trajectory $I/fifo.json --output $O", /--trajectory .*fifo\.json: is a FIFO/],
  ["engines run --reference --transcript $I/fifo.json --output $O", /--transcript .*fifo\.json: is a FIFO/],
  ["tokens $I/fifo.json", /fifo\.json: is a FIFO/],
  ["hotpot score --gold $I/gold.json --pred $I/fifo.json", /--pred .*fifo\.json: is a FIFO/],
  ["hotpot collect --live --env-file $I/fifo.json --output $O", /--env-file .*fifo\.json: is a FIFO/],
  ["tokens $I/zero.json", /zero\.json: is a character device/],
  // missing paths, and paths below a file
  ["hotpot collect --scripted --dataset $I/missing.json --output $O", /--dataset .*missing\.json: not found/],
  [
    "hotpot run --reference --corpus $I/file/c.json --output $O",
    /--corpus .*file\/c\.json: a component of the path is not a directory/,
  ],
  ["compare $RUN $I/missing", /missing: not found/],
  // outputs that exist or cannot be created
  [
    "hotpot run --reference --corpus $C --output $I/file/sub",
    /--output .*file\/sub: its parent is not a directory/,
  ],
  ["hotpot run --reference --corpus $C --output $RUN", /already exists/],
  ["engines generate --out $I/missing/dir/x.json", /--out .*x\.json: folder .*missing\/dir does not exist/],
  ["engines generate --out $I/file/x.json", /--out .*x\.json: its parent is not a directory/],
  ["engines generate --out $I/file", /--out .*file: already exists/],
  ["demo --output $I/file/demo", /--output .*file\/demo: its parent is not a directory/],
  // numbers over their documented maximum
  [
    "hotpot run --reference --corpus $C --timeout-ms 3000000000 --output $O",
    /--timeout-ms 3000000000: must be at most 86400000/,
  ],
  ["hotpot run --reference --corpus $C --concurrency 0 --output $O", /--concurrency/],
  ["hotpot run --reference --corpus $C --max-retries 1000 --output $O", /--max-retries/],
  ["hotpot collect --seed 99999999999 --output $O", /--seed/],
  [
    "engines generate --turns 100000 --words-per-msg 10000 --out $O.json",
    /--turns 100000 × --words-per-msg 10000/,
  ],
  ["engines run --reference --engine-timeout-ms 999999999999 --output $O", /--engine-timeout-ms/],
  ["sweep run --reference --top-n 0-20 --output $O", /--top-n/],
  ["serve-reference --port 70000", /--port 70000: must be at most 65535/],
  // contradicting or ignored options, stray arguments
  [
    "hotpot run --reference --corpus $C --output $O --output $O-other",
    /--output is given twice with different values/,
  ],
  ["sweep run --reference --compressions 1 --compressions 2 --output $O", /--compressions is given twice/],
  ["hotpot collect --check-only --output $O", /hotpot collect: --check-only is not supported/],
  ["hotpot collect --frozen-run $I/missing --output $O", /hotpot collect: --frozen-run is not supported/],
  ["hotpot run --reference --live --corpus $C --output $O", /--reference and --live/],
  [
    "hotpot run --reference --model other --corpus $C --output $O",
    /--reference: --model is only used with --live/,
  ],
  [
    "hotpot run --live --reference-delay-ms 5 --corpus $C --output $O",
    /--live: --reference-delay-ms is only used with --reference/,
  ],
  [
    "hotpot run --reference --corpus $C --frozen-run $I/missing --output $O",
    /--frozen-run .*missing: not found/,
  ],
  ["hotpot run --resume $RUN --output $O", /--output is not allowed with --resume/],
  ["sweep run --resume $RUN --compressions 2", /--compressions is not allowed with --resume/],
  ["hotpot run --reference --corpus $C --output $O stray", /unexpected argument 'stray'/],
  ["hotpot collect --output $O stray", /unexpected argument 'stray'/],
  ["engines generate stray", /unexpected argument 'stray'/],
  [
    "engines run --reference --transcript $I/msgs.json --turns 5 --output $O",
    /--turns is only used without --transcript/,
  ],
  ["engines run --reference --format openai --output $O", /--format is only used with --transcript/],
  [
    "engines run --reference --engine full --engine truncate --engine full --output $O",
    /--engine full is given twice/,
  ],
  ["demo stray", /unexpected argument 'stray'/],
  ["tokens $I/msgs.json stray", /expected exactly one FILE/],
  // empty or duplicate selections
  [
    "hotpot run --reference --corpus $I/dup_ids.json --output $O",
    /dup_ids\.json: field questions: question id .* appears twice/,
  ],
  [
    "hotpot run --reference --corpus $I/no_questions.json --output $O",
    /no_questions\.json: field questions: the corpus has no questions/,
  ],
  ["hotpot collect --bridge 0 --comparison 0 --output $O", /select no question/],
  [
    "hotpot collect --hermes-sessions $I/no_sessions --output $O",
    /--hermes-sessions .*no_sessions: no session file for any of the 30 selected/,
  ],
  [
    "engines run --reference --transcript $I/empty_msgs.json --output $O",
    /empty_msgs\.json: .*('messages' is empty|the transcript has no messages)/,
  ],
  // a chat template that never finishes, or grows without bound
  [
    "tokens --tokenizer $I/tok_loop $I/msgs.json",
    /tok_loop\/tokenizer_config\.json: the chat template did not finish/,
  ],
  [
    "tokens --tokenizer $I/tok_nested $I/msgs.json",
    /tok_nested\/tokenizer_config\.json: the chat template did not finish/,
  ],
  [
    "tokens --tokenizer $I/tok_grow $I/msgs.json",
    /tok_grow\/tokenizer_config\.json: the chat template built a string/,
  ],
  [
    "hotpot run --reference --corpus $C --tokenizer $I/tok_loop --output $O",
    /tok_loop\/tokenizer_config\.json: the chat template/,
  ],
  // an env file line is reported by its number, never its text
  [
    "hotpot run --live --env-file $I/bad.env --corpus $C --output $O",
    /--env-file .*bad\.env: line 3: expected KEY=VALUE/,
  ],
];

const STACK = /^\s+at |Uncaught|panicked|RUST_BACKTRACE|internal error/m;
const before = await listing(tmp);
const limit = pLimit(3);
const results = await Promise.all(CASES.map(([args, names], index) =>
  limit(async () => {
    const out = `${OUT}-${index}`;
    const argv = args.split(" ").map((word) =>
      word.replaceAll("$I", I).replaceAll("$O", out).replaceAll("$C", C).replaceAll("$RUN", collectRun)
    );
    return { args, names, out, ran: await cli(argv) };
  })
));

for (const { args, names, out, ran } of results) {
  Deno.test(`bad input is refused with exit 2 and one line: ${args}`, async () => {
    const context = `${args}\nexit ${ran.code}\nstderr: ${ran.stderr}`;
    assert.equal(ran.timedOut, false, `hung: ${context}`);
    assert.equal(ran.code, 2, context);
    assert.doesNotMatch(ran.stderr, STACK, context);
    const lines = ran.stderr.trim().split("\n");
    assert.equal(lines.length, 1, `one line: ${context}`);
    assert.match(lines[0], names, context);
    assert.ok(!ran.stderr.includes(SECRET) && !ran.stdout.includes(SECRET), "an env-file value was printed");
    for (const path of [out, `${out}.json`]) {
      await assert.rejects(Deno.lstat(path), Deno.errors.NotFound, `wrote ${path}`);
    }
  });
}

Deno.test("no bad input changed or added anything under the inputs or the runs", async () => {
  assert.deepEqual(await listing(tmp), before);
});

Deno.test("a path the process may not read or write is named with the cause, exit 2, nothing written", async () => {
  const common = ["--allow-env", "--allow-sys", "--allow-net=127.0.0.1"];
  const unreadable = await cli(["tokens", join(I, "msgs.json")], [`--allow-read=${ROOT}`, ...common]);
  assert.equal(unreadable.code, 2, unreadable.stderr);
  assert.match(unreadable.stderr.trim(), /^error: .*msgs\.json: not allowed by Deno's permissions/);
  const out = join(tmp, "unwritable-out");
  const unwritable = await cli(
    ["hotpot", "collect", "--questions", "2", "--output", out, "-q"],
    ["--allow-read", `--allow-write=${join(tmp, "nowhere")}`, ...common],
  );
  assert.equal(unwritable.code, 2, unwritable.stderr);
  assert.match(
    unwritable.stderr.trim(),
    /^error: --output .*unwritable-out: not allowed by Deno's permissions/,
  );
  assert.doesNotMatch(unwritable.stderr, STACK);
  await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
});

Deno.test("hotpot score with an empty gold file reports the counts and exits 1, never a row of zeros", async () => {
  const ran = await cli([
    "hotpot",
    "score",
    "--gold",
    join(I, "empty_gold.json"),
    "--pred",
    join(I, "pred_nomatch.json"),
  ]);
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(ran.stderr, /no gold records, nothing to score \(0 gold record\(s\); predictions cover 0/);
  assert.equal(ran.stdout, "");
});

Deno.test("hotpot score with predictions that match no gold id reports the counts and exits 1", async () => {
  const ran = await cli([
    "hotpot",
    "score",
    "--gold",
    join(I, "gold.json"),
    "--pred",
    join(I, "pred_nomatch.json"),
  ]);
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(
    ran.stderr,
    /no prediction matches a gold id.*3 gold record\(s\); predictions cover 0 .*1 predicted id\(s\) match no gold id/,
  );
  assert.equal(ran.stdout, "");
});
