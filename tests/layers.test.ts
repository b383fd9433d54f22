/**
 * One-way layers: every relative import of `src/` (and `main.ts`) goes to the same layer or one below it.
 * Layers, bottom up: core, store, tokens, models, data, methods, pipeline, analysis (statistics and cost over
 * plain data), report, suites, cli. In particular
 * data never imports methods, suites never import the CLI, report never imports suites, tokens never import
 * models and the store imports nothing above it.
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

Deno.test("the layer check sees an upward import (the parser finds import and export forms)", () => {
  const text =
    `import { a } from "../suites/x.ts";\nexport { b } from "./y.ts";\nconst c = await import("../cli/z.ts");`;
  assert.deepEqual(specifiers(text), ["../suites/x.ts", "./y.ts", "../cli/z.ts"]);
  assert.ok(layerOf("src/suites/x.ts") > layerOf("src/report/y.ts"));
  assert.ok(layerOf("src/models/x.ts") > layerOf("src/tokens/y.ts"));
});
