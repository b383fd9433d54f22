/**
 * README's command blocks stay true as written: the first word of every command line resolves on a machine
 * that has only the system's programs and python3 (a shell builtin, a program, or an executable file of the
 * repository); no `~` sits inside quotes (the shell would not expand it: `$HOME` does); every
 * `./compaction-bench COMMAND [SUB]` names a command the program has (its `--help` exits 0); and the block that
 * runs `engines run --reference` runs verbatim, in a fresh folder, through the launcher.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { ROOT } from "./helpers/spawn.ts";

const README = await Deno.readTextFile(join(ROOT, "README.md"));

/** The command blocks of README (sh, bash, shell, console), each as its command lines (continuations joined). */
function commandBlocks(): string[][] {
  const blocks = [...README.matchAll(/```(?:sh|bash|shell|console)\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks.map((block) => {
    const lines: string[] = [];
    let current: string | null = null;
    for (const raw of block.split("\n")) {
      let line = raw.trim();
      if (line.startsWith("$ ")) line = line.slice(2);
      if (current === null && (line === "" || line.startsWith("#"))) continue;
      const continued = line.endsWith("\\");
      const text = continued ? line.slice(0, -1) : line;
      current = current === null ? text : `${current} ${text}`;
      if (!continued) {
        lines.push(current);
        current = null;
      }
    }
    return lines;
  });
}

/** The words of each line as a POSIX shell splits them (Python's shlex, comments removed). */
async function shellWords(lines: string[]): Promise<string[][]> {
  const script = "import json, shlex, sys\n" +
    "print(json.dumps([shlex.split(l, comments=True) for l in json.load(sys.stdin)]))";
  const child = new Deno.Command("python3", { args: ["-c", script], stdin: "piped", stdout: "piped" })
    .spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(lines)));
  await writer.close();
  const out = await child.output();
  assert.ok(out.success);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** The first word that is not a variable assignment (`A=b cmd`). */
function commandWord(words: string[]): string | undefined {
  return words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
}

Deno.test("README: every command line's first word resolves on a fresh machine; no quoted ~", async () => {
  const lines = commandBlocks().flat();
  assert.ok(lines.length >= 20, `only ${lines.length} command lines found`);
  const python = await new Deno.Command("python3", {
    args: ["-c", "import sys; print(sys.executable)"],
    stdout: "piped",
  }).output();
  const clean = `/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:${
    dirname(new TextDecoder().decode(python.stdout).trim())
  }`;
  const unresolved = new Set<string>();
  for (const word of new Set((await shellWords(lines)).map(commandWord).filter((w) => w !== undefined))) {
    const type = await new Deno.Command("bash", {
      args: ["-c", 'type -t -- "$1" >/dev/null', "_", word!],
      env: { PATH: clean },
      clearEnv: true,
    }).output();
    if (type.success) continue;
    const file = await Deno.stat(join(ROOT, word!)).catch(() => null);
    if (word!.startsWith("./") && file?.isFile && (file.mode! & 0o111) !== 0) continue;
    unresolved.add(word!);
  }
  assert.deepEqual([...unresolved], [], "README command words that do not resolve on a fresh machine");
  const tilde = lines.filter((line) => /"[^"]*(^|[\s=:])~\/[^"]*"|'[^']*(^|[\s=:])~\/[^']*'/.test(line));
  assert.deepEqual(tilde, [], "a ~ inside quotes is not expanded by the shell: write $HOME");
});

Deno.test("README: every ./compaction-bench command and sub-command it names exists", async () => {
  const words = await shellWords(commandBlocks().flat());
  const named = new Set<string>();
  for (const line of words) {
    const at = line.indexOf("./compaction-bench");
    if (at < 0) continue;
    const [command, sub] = line.slice(at + 1);
    const suite = ["hotpot", "sweep", "engines"].includes(command);
    named.add(suite && sub !== undefined && !sub.startsWith("-") ? `${command} ${sub}` : command);
  }
  assert.ok(named.has("hotpot predictions") && named.has("verify"), [...named].join(", "));
  for (const entry of named) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        join(ROOT, "main.ts"),
        ...entry.split(" "),
        ...(entry === "sweep case" ? ["check"] : []),
        "--help",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, `${entry} --help: ${new TextDecoder().decode(out.stderr)}`);
  }
});

Deno.test("README: the engines example runs as written, through the launcher, in a fresh folder", async () => {
  const block = commandBlocks().find((lines) => lines.some((l) => /engines run .*--reference/.test(l)));
  assert.ok(block, "README has an engines run --reference example");
  const cwd = await Deno.makeTempDir({ prefix: "readme_example_" });
  try {
    for (const line of block) {
      // As written, but for where the checkout is (the launcher finds main.ts beside itself).
      const out = await new Deno.Command("bash", {
        args: ["-c", line.replaceAll("./compaction-bench", join(ROOT, "compaction-bench"))],
        cwd,
        env: { NO_COLOR: "1", COMPACTION_BENCH_DENO: Deno.execPath() },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, `${line}: ${new TextDecoder().decode(out.stderr)}`);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
