/**
 * The docs name files that exist: every backticked repository path in README.md and docs/*.md (`src/…`,
 * `tests/…`, `scripts/…`, …; placeholders such as `<suite>` and globs skipped) is a file or folder of the
 * checkout, and docs/ARCHITECTURE.md stays a map (at most 500 lines).
 */
import assert from "node:assert/strict";

const ROOTS = /^(src|tests|scripts|bench|adapters|fixtures|docs)\/[A-Za-z0-9_./-]*$/;

async function docs(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir("docs")) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

function namedPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const [, code] of text.matchAll(/`([^`\n]+)`/g)) {
    const path = code.replace(/[.,:;)]+$/, "");
    if (ROOTS.test(path)) paths.add(path);
  }
  return [...paths];
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("every repository path the docs name in backticks exists", async () => {
  const missing: string[] = [];
  let checked = 0;
  for (const file of await docs()) {
    for (const path of namedPaths(await Deno.readTextFile(file))) {
      checked++;
      if (!exists(path)) missing.push(`${file}: ${path}`);
    }
  }
  assert(checked > 100, `only ${checked} paths found: the scan is broken`);
  assert.deepEqual(missing, []);
});

Deno.test("docs/ARCHITECTURE.md is a map of at most 500 lines", async () => {
  const lines = (await Deno.readTextFile("docs/ARCHITECTURE.md")).split("\n").length;
  assert(lines <= 500, `docs/ARCHITECTURE.md has ${lines} lines`);
});
