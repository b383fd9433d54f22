/**
 * Every numeric option documents its maximum in its command's --help (the value zod enforces), so no option
 * is accepted without a bound.
 */
import assert from "node:assert/strict";
import { COMMANDS } from "../src/cli/commands.ts";

const HELPS: [string, string[]][] = [
  ["hotpot", ["collect", "--help"]],
  ["hotpot", ["run", "--help"]],
  ["sweep", ["run", "--help"]],
  ["engines", ["run", "--help"]],
  ["engines", ["generate", "--help"]],
  ["serve-reference", ["--help"]],
  ["tokens", ["--help"]],
  ["compare", ["--help"]],
  ["verify", ["--help"]],
  ["demo", ["--help"]],
];

async function helpText(word: string, argv: string[]): Promise<string> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    assert.equal(await COMMANDS[word].run(argv), 0);
  } finally {
    console.log = log;
  }
  return lines.join("\n");
}

/** The option blocks of a help text: an option line and its indented continuation lines. */
function optionBlocks(help: string): string[] {
  const blocks: string[] = [];
  for (const line of help.split("\n")) {
    if (/^\s+(-\w, )?--[a-z]/.test(line)) blocks.push(line);
    else if (blocks.length > 0 && /^\s{10,}\S/.test(line)) blocks[blocks.length - 1] += "\n" + line;
  }
  return blocks;
}

for (const [word, argv] of HELPS) {
  Deno.test(`every numeric option of '${word} ${argv[0]}' documents its maximum`, async () => {
    const numeric = optionBlocks(await helpText(word, argv)).filter((b) => /--[\w-]+ (N|RANGE)\b/.test(b));
    if (["hotpot", "sweep", "engines", "serve-reference"].includes(word)) assert.ok(numeric.length > 0);
    for (const block of numeric) assert.match(block, /at most \d|\d to \d/, block);
  });
}
