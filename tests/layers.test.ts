/**
 * One-way layers: every relative import of `src/` (and `main.ts`) goes to the same layer or one below it.
 * Layers, bottom up: core, store, tokens, models, data, methods, pipeline, analysis (statistics and cost over
 * plain data), report, suites, cli. In particular
 * data never imports methods, suites never import the CLI, report never imports suites, tokens never import
 * models and the store imports nothing above it.
 *
 * And each suite owns its knowledge: nothing outside a suite's folder (`src/suites/<name>/`) imports from it,
 * except the suite registry (`src/suites/registry.ts`, the only table listing suites) and the CLI layer
 * (`src/cli/`, `main.ts`: a suite's option table and parsing live in `src/cli/<suite>.ts`, and the single
 * binary starts the sweep's repair sandbox child). `bench/` and `tests/` may import any suite.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

const LAYERS: [string, RegExp][] = [
  ["core", /^src\/(core\/|errors\.ts$|version\.ts$|assets\.ts$|fs_input\.ts$)/],
  ["store", /^src\/(store\/|program_identity\.ts$)/],
  ["tokens", /^src\/tokens\//],
  ["models", /^src\/models\//],
  ["data", /^src\/data\//],
  ["methods", /^src\/methods\//],
  ["pipeline", /^src\/pipeline\//],
  ["analysis", /^src\/analysis\//],
  ["report", /^src\/report\//],
  ["suites", /^src\/suites\//],
  ["cli", /^(src\/cli\/|main\.ts$)/],
];

function layerOf(path: string): number {
  const index = LAYERS.findIndex(([, pattern]) => pattern.test(path));
  if (index < 0) throw new Error(`${path} belongs to no layer: add it to tests/layers.test.ts`);
  return index;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, dir))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await sourceFiles(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Every relative module specifier of a file (static imports and re-exports, dynamic imports). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;
  for (const match of text.matchAll(pattern)) found.push(match[1]);
  return found;
}

Deno.test("no import in src/ runs back up a layer", async () => {
  const files = [...await sourceFiles("src"), "main.ts"];
  const upward: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    for (const spec of specifiers(await Deno.readTextFile(join(ROOT, file)))) {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/");
      const to = layerOf(target);
      if (to > from) upward.push(`${file} (${LAYERS[from][0]}) imports ${target} (${LAYERS[to][0]})`);
    }
  }
  assert.deepEqual(upward, []);
});

/** The suite folder (`hotpot`, `sweep`, …) a path under `src/suites/<name>/` belongs to, else undefined. */
function suiteFolderOf(path: string): string | undefined {
  return /^src\/suites\/([^/]+)\//.exec(path)?.[1];
}

/** May `file` import from a suite's folder it is not in? Only the registry and the CLI layer may. */
function maySeeSuites(file: string): boolean {
  return file === "src/suites/registry.ts" || LAYERS[layerOf(file)][0] === "cli";
}

Deno.test("nothing outside a suite's folder names that suite (but the registry and the CLI)", async () => {
  const files = [...await sourceFiles("src"), "main.ts"];
  const outside: string[] = [];
  for (const file of files) {
    if (maySeeSuites(file)) continue;
    for (const spec of specifiers(await Deno.readTextFile(join(ROOT, file)))) {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/");
      const suite = suiteFolderOf(target);
      if (suite !== undefined && suiteFolderOf(file) !== suite) outside.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(outside, []);
});

Deno.test("the suite-folder check tells a suite's own files, the registry and the CLI from the rest", () => {
  assert.equal(suiteFolderOf("src/suites/hotpot/collect/stages/collect.ts"), "hotpot");
  assert.equal(suiteFolderOf("src/suites/stage_registry.ts"), undefined);
  assert.ok(maySeeSuites("src/suites/registry.ts"));
  assert.ok(maySeeSuites("src/cli/hotpot.ts"));
  assert.ok(maySeeSuites("main.ts"));
  assert.ok(!maySeeSuites("src/suites/stage_registry.ts"));
  assert.ok(!maySeeSuites("src/report/compare_units.ts"));
});

Deno.test("the layer check sees an upward import (the parser finds import and export forms)", () => {
  const text =
    `import { a } from "../suites/x.ts";\nexport { b } from "./y.ts";\nconst c = await import("../cli/z.ts");`;
  assert.deepEqual(specifiers(text), ["../suites/x.ts", "./y.ts", "../cli/z.ts"]);
  assert.ok(layerOf("src/suites/x.ts") > layerOf("src/report/y.ts"));
  assert.ok(layerOf("src/models/x.ts") > layerOf("src/tokens/y.ts"));
});
