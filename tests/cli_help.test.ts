import assert from "node:assert/strict";
import { COMMANDS } from "../src/cli/commands.ts";
import { runCli } from "./helpers/spawn.ts";

Deno.test("--help on every command exits 0 and prints that command's usage", async () => {
  const words = Object.keys(COMMANDS);
  assert.ok(words.includes("demo") && words.includes("verify"));
  const results = await Promise.all(words.map((word) => runCli([word, "--help"])));
  results.forEach((result, i) => {
    assert.equal(result.code, 0, `${words[i]} --help: ${result.stderr}`);
    assert.ok(
      result.stdout.includes(`compaction-bench ${words[i]}`),
      `${words[i]} --help:\n${result.stdout}`,
    );
  });
});

Deno.test("top-level --help lists every command and exits 0; no command at all exits 2", async () => {
  const [help, none] = await Promise.all([runCli(["--help"]), runCli([])]);
  assert.equal(help.code, 0);
  for (const word of Object.keys(COMMANDS)) assert.match(help.stdout, new RegExp(`^  ${word} `, "m"));
  assert.equal(none.code, 2);
});

Deno.test("an unknown command exits 2 with a message naming it", async () => {
  const result = await runCli(["frobnicate", "--output", "x"]);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /unknown command 'frobnicate'/);
});

Deno.test("an unknown option exits 2 with a message naming the option, on every command", async () => {
  const words = Object.keys(COMMANDS);
  const results = await Promise.all(words.map((word) => runCli([word, "--no-such-option"])));
  results.forEach((result, i) => {
    assert.equal(result.code, 2, `${words[i]}: ${result.stderr}`);
    assert.match(result.stderr, /--no-such-option/, `${words[i]}: ${result.stderr}`);
    assert.equal(result.stdout, "", `${words[i]} writes nothing to stdout on a usage error`);
  });
});

Deno.test("verify with no directory, or two, is a usage error (exit 2)", async () => {
  const [none, two] = await Promise.all([runCli(["verify"]), runCli(["verify", "a", "b"])]);
  assert.equal(none.code, 2);
  assert.equal(two.code, 2);
  assert.match(none.stderr, /exactly one run directory/);
});

Deno.test("the top-level help names every sub-command; a slip of a command or sub-command gets the one meant", async () => {
  const { usage } = await import("../src/cli/commands.ts");
  const help = usage();
  // Each suite's dispatcher lists its sub-commands when given an unknown one: every one is in the top-level help.
  for (const suite of ["hotpot", "sweep", "engines"]) {
    const unknown = await runCli([suite, "zzzz"]);
    assert.equal(unknown.code, 2, unknown.stderr);
    const expected = /\(expected ([^)]*)\)/.exec(unknown.stderr)?.[1];
    assert.ok(expected, unknown.stderr);
    const line = help.split("\n").find((l) => l.trimStart().startsWith(`${suite} `));
    for (const sub of expected.split(/, | or /)) {
      assert.ok(line?.includes(sub), `top-level help's ${suite} line lacks '${sub}': ${line}`);
    }
  }
  assert.match(help, /hotpot .*predictions/);
  const [command, sub, far] = await Promise.all([
    runCli(["hotpt"]),
    runCli(["hotpot", "predicitons"]),
    runCli(["frobnicate"]),
  ]);
  assert.equal(command.code, 2);
  assert.match(command.stderr, /^compaction-bench: unknown command 'hotpt'; did you mean 'hotpot'\?/);
  assert.equal(sub.code, 2);
  assert.match(sub.stderr, /unknown subcommand 'predicitons'; did you mean 'predictions'\?/);
  assert.doesNotMatch(far.stderr, /did you mean/);
});
