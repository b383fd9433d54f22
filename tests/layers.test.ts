/**
 * One-way layers: every relative import of `src/` (and `main.ts`) goes to the same layer or one below it.
 * Layers, bottom up: core, store, tokens, models, data, methods, pipeline, analysis (statistics and cost over
 * plain data), report, suites, cli. In particular
 * data never imports methods, suites never import the CLI, report never imports suites, tokens never import
 * models and the store imports nothing above it. No import circle exists (a file's imports never lead back
 * to it). `src/report/` and `src/analysis/` name no suite's metric (a suite declares which are shares).
 *
 * And each suite owns its knowledge: nothing outside a suite's folder (`src/suites/<name>/`) imports from it,
 * except the suite registry (`src/suites/registry.ts`, the only table listing suites) and the suite's command
 * line (`src/cli/<name>/`: its option tables, help and parsing), which only the CLI's command table
 * (`src/cli/commands.ts`) imports, through its entry `<name>.ts` (the demo runs the suites through that table;
 * `main.ts` starts the sweep's repair sandbox child through `src/cli/sweep/sandbox_child.ts`).
 * `bench/` and `tests/` may import any suite. Nor does any other
 * file of `src/` name a suite in its code: no string literal is a suite's name or one of its stage names
 * (`"hotpot"`, `"engines-aggregate"`): a suite's knowledge is declared on its `Suite` value (the shared CLI
 * files of `src/cli/` may: they hold the command words).
 *
 * And the hotpot folder keeps its halves apart: `collect/` (hotpot collect), `run/` (hotpot run) and `report/`
 * (its reports and statistics) share only the folder's shared files (the corpus, its index and question
 * cards, the workspace and its read_file tool), which import no half; only `definition.ts`,
 * `collect_definition.ts`, `command.ts`, `collect_command.ts` and `rederivation.ts` assemble the halves. collect/ imports neither run/ nor report/; run/ imports of
 * report/ only the report stage it plans; report/ reads run/'s rows and aggregates but never collect/ or the
 * run itself (`run/run_suite.ts`).
 */
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { SUITES } from "../src/suites/registry.ts";

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

/**
 * Every relative module specifier of a file (static imports and re-exports, dynamic imports); comment lines
 * (a JSDoc `@example` importing its own module) are not imports.
 */
function specifiers(text: string): string[] {
  const code = text.split("\n").filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n");
  const found: string[] = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g;
  for (const match of code.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** Every file of `src/` (and `main.ts`) with the files of `src/` it imports. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const file of [...await sourceFiles("src"), "main.ts"]) {
    graph.set(
      file,
      specifiers(await Deno.readTextFile(join(ROOT, file))).map((spec) =>
        relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/")
      ),
    );
  }
  return graph;
}

/** The imports that run back up a layer, as `from (layer) imports to (layer)`. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const upward: string[] = [];
  for (const [file, targets] of graph) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (to > from) upward.push(`${file} (${LAYERS[from][0]}) imports ${target} (${LAYERS[to][0]})`);
    }
  }
  return upward;
}

/** The import circles of `graph`: its strongly connected components of two files or more, or a self-import. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => { // Tarjan's algorithm
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

Deno.test("no import in src/ runs back up a layer", async () => {
  assert.deepEqual(upwardImports(await importGraph()), []);
});

Deno.test("no import circle in src/", async () => {
  assert.deepEqual(circles(await importGraph()), []);
});

Deno.test("the circle check finds a circle and a self-import, not a chain", () => {
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["d", "a"]], ["e", ["a"]]]);
  assert.deepEqual(circles(graph), [["a", "b", "c"], ["d"]]);
  assert.deepEqual(circles(new Map([["a", ["b"]], ["b", []]])), []);
});

Deno.test("src/report and src/analysis name no suite metric", async () => {
  const metrics = new Set(SUITES.flatMap((s) => s.metrics?.map((m) => m.name) ?? []));
  const named: string[] = [];
  for (const file of [...await sourceFiles("src/report"), ...await sourceFiles("src/analysis")]) {
    for (const literal of stringLiterals(await Deno.readTextFile(join(ROOT, file)))) {
      if (metrics.has(literal)) named.push(`${file}: ${JSON.stringify(literal)}`);
    }
  }
  assert.deepEqual(named, []);
});

/** The suite folder (`hotpot`, `sweep`, …) a path under `src/suites/<name>/` belongs to, else undefined. */
function suiteFolderOf(path: string): string | undefined {
  return /^src\/suites\/([^/]+)\//.exec(path)?.[1];
}

/** The suite whose command line (`src/cli/<name>/`) holds `path`, else undefined. */
function suiteCliOf(path: string): string | undefined {
  return /^src\/cli\/([^/]+)\//.exec(path)?.[1];
}

/**
 * verify's table of every stage's outputs by name (kept off the registry's imports for start-up speed;
 * tests/stage_outputs.test.ts holds it equal to the declarations): like the registry, it names every suite.
 */
const STAGE_OUTPUTS_TABLE = "src/suites/stage_outputs.ts";

/** May the shared CLI files of `file` name suites in their code (command words, help)? */
function maySeeSuites(file: string): boolean {
  return file === "src/suites/registry.ts" || file === STAGE_OUTPUTS_TABLE ||
    (/^(src\/cli\/|main\.ts$)/.test(file) && suiteCliOf(file) === undefined);
}

/**
 * Why `file` may not import `target`, as far as suites' folders go, or undefined when it may. A suite's own
 * files and its command line (`src/cli/<name>/`) import its folder, and the registry its definitions; the
 * command table imports a suite's command-line entry `src/cli/<name>/<name>.ts` (and `main.ts` the sweep's
 * sandbox entry); nothing else crosses into a suite's folder or its command line.
 */
function suiteImportRefusal(file: string, target: string): string | undefined {
  const cli = suiteCliOf(target);
  if (cli !== undefined) {
    if (suiteCliOf(file) === cli) return undefined;
    if (file === "src/cli/commands.ts" && target === `src/cli/${cli}/${cli}.ts`) return undefined;
    if (file === "main.ts" && target === "src/cli/sweep/sandbox_child.ts") return undefined;
    return "a suite's command line is imported only by the command table (its entry src/cli/<name>/<name>.ts)";
  }
  const suite = suiteFolderOf(target);
  if (suite === undefined) return undefined;
  if (suiteFolderOf(file) === suite || suiteCliOf(file) === suite || file === "src/suites/registry.ts") {
    return undefined;
  }
  return "nothing outside a suite's folder and its command line imports from it";
}

Deno.test("nothing outside a suite's folder imports from it (but the registry and its command line)", async () => {
  const files = [...await sourceFiles("src"), "main.ts"];
  const outside: string[] = [];
  for (const file of files) {
    for (const spec of specifiers(await Deno.readTextFile(join(ROOT, file)))) {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/");
      const why = suiteImportRefusal(file, target);
      if (why !== undefined) outside.push(`${file} imports ${target}: ${why}`);
    }
  }
  assert.deepEqual(outside, []);
});

/** The string literals of a TypeScript text (their text between the quotes), comments and regular expressions skipped. */
function stringLiterals(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  let last = ""; // the last significant character outside literals and comments
  const regexMayStart = () =>
    last === "" || "(,=:[!&|?{};+-*%<>~^".includes(last) ||
    /\b(return|typeof|case|of|in)$/.test(text.slice(Math.max(0, i - 7), i).trimEnd());
  while (i < text.length) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === "/" && regexMayStart()) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== "\n") {
        if (text[j] === "\\") j++;
        else if (text[j] === "[") inClass = true;
        else if (text[j] === "]") inClass = false;
        else if (text[j] === "/" && !inClass) break;
        j++;
      }
      i = j + 1;
      last = "/";
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      let body = "";
      while (j < text.length && text[j] !== c) {
        if (text[j] === "\\") body += text[j++];
        body += text[j++];
      }
      out.push(body);
      i = j + 1;
      last = c;
    } else {
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return out;
}

/** Each suite's folder by the names that name it: its header name and command word (`hotpot-collect`, `hotpot`). */
const SUITE_FOLDERS = new Map(
  SUITES.flatMap((s): [string, string][] => [[s.name, s.command[0]], [s.command[0], s.command[0]]]),
);
/** Each suite's folder by its stages' names (`hotpot-answer`, `engines-aggregate`). */
const STAGE_FOLDERS = new Map(
  SUITES.flatMap((s) => s.stages.map((d): [string, string] => [d.name, s.command[0]])).filter(([name]) =>
    [...SUITE_FOLDERS.keys()].some((suite) => name.startsWith(`${suite}-`))
  ),
);

/**
 * The suite folder a string literal names, if any: a suite's stage, a suite's name followed by a word
 * (`hotpot-answer`, `hotpot run`), or, when `bare`, a suite's name alone (`"hotpot"`; inside a suite's folder
 * a bare word may be its own option's name, e.g. hotpot's `engines`).
 */
function suiteNamedBy(literal: string, bare = true): string | undefined {
  const stage = STAGE_FOLDERS.get(literal);
  if (stage !== undefined) return stage;
  if (bare && SUITE_FOLDERS.has(literal)) return SUITE_FOLDERS.get(literal);
  const name = [...SUITE_FOLDERS.keys()].find((n) => new RegExp(`^${n}[- ][a-z0-9-]+$`).test(literal));
  return name === undefined ? undefined : SUITE_FOLDERS.get(name);
}

Deno.test("nothing outside a suite's folder names that suite in its code (but the registry and the CLI)", async () => {
  const files = [...await sourceFiles("src"), "main.ts"];
  const naming: string[] = [];
  for (const file of files) {
    if (maySeeSuites(file)) continue;
    const own = suiteFolderOf(file) ?? suiteCliOf(file);
    for (const literal of stringLiterals(await Deno.readTextFile(join(ROOT, file)))) {
      const suite = suiteNamedBy(literal, own === undefined);
      if (suite !== undefined && suite !== own) naming.push(`${file}: ${JSON.stringify(literal)}`);
    }
  }
  assert.deepEqual(naming, []);
});

Deno.test("the suite-name check finds literals, not comments, regular expressions or prose", () => {
  const text = [
    `// "hotpot" in a comment`,
    `/* 'sweep' */ const a = /"engines"/g, b = x / 2, c = "engines-aggregate";`,
    'const d = `the sweep\'s summary`, e = \'hotpot\', f = "say \\"sweep\\"";',
  ].join("\n");
  const literals = stringLiterals(text);
  assert.deepEqual(literals, ["engines-aggregate", "the sweep's summary", "hotpot", 'say \\"sweep\\"']);
  assert.deepEqual(literals.map((l) => suiteNamedBy(l)), ["engines", undefined, "hotpot", undefined]);
  assert.equal(suiteNamedBy("hotpot-collect"), "hotpot");
  assert.equal(suiteNamedBy("hotpot-answer", false), "hotpot");
  assert.equal(suiteNamedBy("sweep run"), "sweep");
  assert.equal(suiteNamedBy("engines", false), undefined);
  assert.equal(suiteNamedBy("hotpots"), undefined);
});

/** The part of the hotpot folder a file belongs to: one of its halves, its assembly or its shared files. */
function hotpotPart(path: string): "collect" | "run" | "report" | "assembly" | "shared" | undefined {
  const inner = /^src\/suites\/hotpot\/(.+)$/.exec(path)?.[1];
  if (inner === undefined) return undefined;
  const half = /^(collect|run|report)\//.exec(inner)?.[1] as "collect" | "run" | "report" | undefined;
  if (half) return half;
  return ["definition.ts", "collect_definition.ts", "command.ts", "collect_command.ts", "rederivation.ts"]
      .includes(inner)
    ? "assembly"
    : "shared";
}

/** Why `file` may not import `target` (both in the hotpot folder), or undefined when it may. */
function hotpotImportRefusal(file: string, target: string): string | undefined {
  const from = hotpotPart(file);
  const to = hotpotPart(target);
  if (from === undefined || to === undefined || from === to || from === "assembly" || to === "shared") {
    return undefined;
  }
  if (to === "assembly") return "only the suites' registry, the CLI and the assembly import the assembly";
  if (from === "shared") return "the shared files import no half";
  if (from === "collect") return "collect/ imports neither run/ nor report/";
  if (from === "run") {
    return target === "src/suites/hotpot/report/stages/report.ts"
      ? undefined
      : "run/ imports of report/ only the report stage it plans";
  }
  if (to === "collect") return "report/ never imports collect/";
  return target === "src/suites/hotpot/run/run_suite.ts"
    ? "report/ reads the run's outputs, never the run"
    : undefined;
}

Deno.test("the hotpot folder keeps collect/, run/ and report/ apart", async () => {
  const files = await sourceFiles("src/suites/hotpot");
  assert.ok(files.some((f) => hotpotPart(f) === "collect") && files.some((f) => hotpotPart(f) === "report"));
  const refused: string[] = [];
  for (const file of files) {
    for (const spec of specifiers(await Deno.readTextFile(join(ROOT, file)))) {
      const target = relative(ROOT, normalize(join(ROOT, dirname(file), spec))).replaceAll("\\", "/");
      const why = hotpotImportRefusal(file, target);
      if (why !== undefined) refused.push(`${file} imports ${target}: ${why}`);
    }
  }
  assert.deepEqual(refused, []);
});

Deno.test("the hotpot halves check refuses what crosses between halves", () => {
  const H = "src/suites/hotpot/";
  assert.equal(hotpotPart(`${H}corpus.ts`), "shared");
  assert.equal(hotpotPart(`${H}command.ts`), "assembly");
  assert.equal(hotpotPart(`${H}collect_command.ts`), "assembly");
  assert.equal(hotpotPart(`${H}run/stages/score.ts`), "run");
  assert.equal(hotpotPart("src/suites/sweep/run_suite.ts"), undefined);
  assert.equal(hotpotImportRefusal(`${H}command.ts`, `${H}collect/collect_suite.ts`), undefined);
  assert.equal(hotpotImportRefusal(`${H}report/stats.ts`, `${H}run/rows.ts`), undefined);
  assert.equal(hotpotImportRefusal(`${H}run/run_suite.ts`, `${H}report/stages/report.ts`), undefined);
  assert.ok(hotpotImportRefusal(`${H}collect/collect_suite.ts`, `${H}run/methods.ts`));
  assert.ok(hotpotImportRefusal(`${H}run/methods.ts`, `${H}collect/trajectory.ts`));
  assert.ok(hotpotImportRefusal(`${H}run/aggregate.ts`, `${H}report/stats.ts`));
  assert.ok(hotpotImportRefusal(`${H}report/report.ts`, `${H}run/run_suite.ts`));
  assert.ok(hotpotImportRefusal(`${H}report/report.ts`, `${H}collect/select.ts`));
  assert.ok(hotpotImportRefusal(`${H}corpus.ts`, `${H}run/rows.ts`));
  assert.ok(hotpotImportRefusal(`${H}run/rows.ts`, `${H}definition.ts`));
});

Deno.test("the suite-folder check tells a suite's own files, the registry and its command line from the rest", () => {
  const S = "src/suites/";
  const C = "src/cli/";
  assert.equal(suiteFolderOf(`${S}hotpot/collect/stages/collect.ts`), "hotpot");
  assert.equal(suiteFolderOf(`${S}stage_registry.ts`), undefined);
  assert.equal(suiteCliOf(`${C}hotpot/score.ts`), "hotpot");
  assert.equal(suiteCliOf(`${C}commands.ts`), undefined);
  assert.ok(maySeeSuites(`${S}registry.ts`));
  assert.ok(maySeeSuites(`${C}commands.ts`));
  assert.ok(maySeeSuites("main.ts"));
  assert.ok(!maySeeSuites(`${C}hotpot/hotpot.ts`)); // a suite's command line names only its own suite
  assert.ok(!maySeeSuites(`${S}stage_registry.ts`));
  assert.ok(!maySeeSuites("src/report/compare_units.ts"));
  assert.equal(suiteImportRefusal(`${S}registry.ts`, `${S}hotpot/definition.ts`), undefined);
  assert.equal(suiteImportRefusal(`${C}commands.ts`, `${C}hotpot/hotpot.ts`), undefined);
  assert.equal(suiteImportRefusal(`${C}hotpot/hotpot.ts`, `${C}hotpot/score.ts`), undefined);
  assert.equal(suiteImportRefusal(`${C}hotpot/hotpot.ts`, `${S}hotpot/command.ts`), undefined);
  assert.equal(suiteImportRefusal(`${C}hotpot/hotpot.ts`, `${C}args.ts`), undefined);
  assert.equal(suiteImportRefusal("main.ts", `${C}sweep/sandbox_child.ts`), undefined);
  assert.ok(suiteImportRefusal(`${C}commands.ts`, `${C}hotpot/score.ts`)); // only the entry
  assert.ok(suiteImportRefusal(`${C}commands.ts`, `${S}hotpot/command.ts`));
  assert.ok(suiteImportRefusal(`${C}verify.ts`, `${C}sweep/sweep.ts`));
  assert.ok(suiteImportRefusal(`${C}demo.ts`, `${C}hotpot/hotpot.ts`)); // the demo goes through COMMANDS
  assert.ok(suiteImportRefusal("main.ts", `${S}sweep/sandbox_child.ts`));
  assert.ok(suiteImportRefusal(`${S}registry.ts`, `${C}sweep/sweep.ts`));
  assert.ok(suiteImportRefusal(`${C}sweep/sweep.ts`, `${C}hotpot/hotpot.ts`));
  assert.ok(suiteImportRefusal(`${C}sweep/sweep.ts`, `${S}hotpot/run/methods.ts`));
  assert.ok(suiteImportRefusal(`${S}stage_registry.ts`, `${S}hotpot/definition.ts`));
  assert.ok(layerOf(`${C}hotpot/hotpot.ts`) > layerOf(`${S}hotpot/command.ts`)); // no suite imports the CLI
  assert.equal(LAYERS[layerOf(`${S}hotpot/cli/hotpot.ts`)][0], "suites");
});

Deno.test("the layer check sees an upward import (the parser finds import and export forms)", () => {
  const text =
    `import { a } from "../suites/x.ts";\nexport { b } from "./y.ts";\nconst c = await import("../cli/z.ts");`;
  assert.deepEqual(specifiers(text), ["../suites/x.ts", "./y.ts", "../cli/z.ts"]);
  assert.ok(layerOf("src/suites/x.ts") > layerOf("src/report/y.ts"));
  assert.ok(layerOf("src/models/x.ts") > layerOf("src/tokens/y.ts"));
});

/** Literals that are a stage's name but not a use of it, with why. */
const NOT_STAGE_NAMES: { file: string; literal: string; why: string }[] = [
  { file: "src/cli/demo.ts", literal: "hotpot-corpus", why: "the demo's corpus run directory" },
  {
    file: "src/suites/hotpot/collect_definition.ts",
    literal: "hotpot-collect",
    why: "the collect suite's own title",
  },
];

/**
 * Where `text` names a stage of `names` as a string literal outside its declaration (`name: "…"`, an
 * `answerStageDef("…")` or a `…_STAGE = "…"` constant); comment lines are not code.
 */
function stageNameLiterals(text: string, names: ReadonlySet<string>): { line: number; literal: string }[] {
  const found: { line: number; literal: string }[] = [];
  text.split("\n").forEach((line, index) => {
    if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
    for (const match of line.matchAll(/(["'`])([a-z][a-z-]*)\1/g)) {
      const literal = match[2];
      if (!names.has(literal)) continue;
      const declared = new RegExp(`(\\bname: |StageDef\\(|_STAGE = )${match[1]}${literal}${match[1]}`);
      if (!declared.test(line)) found.push({ line: index + 1, literal });
    }
  });
  return found;
}

Deno.test("no stage is named by a string literal outside its declaration", async () => {
  const { STAGES } = await import("../src/suites/registry.ts");
  const names = new Set(STAGES.map((s) => s.name));
  const files = [...await sourceFiles("src"), "main.ts"];
  const named: string[] = [];
  for (const file of files) {
    if (file === STAGE_OUTPUTS_TABLE) continue;
    for (const { line, literal } of stageNameLiterals(await Deno.readTextFile(join(ROOT, file)), names)) {
      if (NOT_STAGE_NAMES.some((n) => n.file === file && n.literal === literal)) continue;
      named.push(`${file}:${line} "${literal}"`);
    }
  }
  assert.deepEqual(named, [], "use the declaration's name (e.g. hotpotAnswerStage.name), not the literal");
});

Deno.test("the stage-name check finds a literal in code, not in comments or declarations", () => {
  const names = new Set(["hotpot-rank", "run-header"]);
  const text = [
    "/** `hotpot-rank`: the ranking. */",
    '  name: "hotpot-rank",',
    'export const RUN_HEADER_STAGE = "run-header";',
    '  progress.plan("hotpot-rank", 1);',
    "  if (node.stage === 'run-header') return;",
  ].join("\n");
  assert.deepEqual(stageNameLiterals(text, names), [
    { line: 4, literal: "hotpot-rank" },
    { line: 5, literal: "run-header" },
  ]);
});
