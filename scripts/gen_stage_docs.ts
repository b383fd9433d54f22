/**
 * Generates the stage catalogue from the stage declarations: the section of docs/FORMAT.md between
 * `<!-- BEGIN STAGE CATALOGUE -->` and `<!-- END STAGE CATALOGUE -->` (every stage's version, params, inputs,
 * outputs and whether it calls a provider) and one JSON Schema per stage under docs/schemas/stages/ (its params
 * and outputs, from the zod schemas with `z.toJSONSchema`). `tests/stage_docs.test.ts` fails when they are stale.
 *
 * Run: `deno run --allow-read --allow-write scripts/gen_stage_docs.ts` (`--check` only compares).
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { STAGES } from "../src/suites/registry.ts";
import type { AnyStageDef } from "../src/pipeline/stage.ts";

/** The project root. */
export const ROOT: string = fileURLToPath(new URL("../", import.meta.url));
/** The file that holds the catalogue between its markers. */
export const FORMAT_MD = join(ROOT, "docs", "FORMAT.md");
/** The directory of the stages' JSON Schemas. */
export const SCHEMA_DIR = join(ROOT, "docs", "schemas", "stages");
/** The markers around the generated section. */
export const BEGIN = "<!-- BEGIN STAGE CATALOGUE -->";
/** The markers around the generated section. */
export const END = "<!-- END STAGE CATALOGUE -->";

function jsonSchema(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { unrepresentable: "any", io: "output" });
}

/** The JSON Schema document of one stage (params and outputs). */
export function stageSchema(def: AnyStageDef): unknown {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: `${def.name}@${def.version}`,
    description: def.doc,
    type: "object",
    properties: {
      params: jsonSchema(def.params),
      outputs: {
        type: "object",
        properties: Object.fromEntries(
          Object.entries(def.outputs).map(([name, spec]) => [
            name,
            spec.kind === "text"
              ? { type: "string", description: `${spec.doc} (stored as its exact UTF-8 bytes)` }
              : { ...(jsonSchema(spec.schema) as Record<string, unknown>), description: spec.doc },
          ]),
        ),
      },
    },
  };
}

const POLICY =
  `Versioning. A stage's \`version\` enters its node key. It is bumped whenever the same params and inputs
could give other output bytes or another meaning: a changed body, a new, removed or renamed output, a changed
output schema, a changed status or reason rule. Changing how params are named or what they hold changes the keys
by itself and needs no bump; transport settings (concurrency, retries, timeouts) never enter params. A bump makes
every older node of that stage unmatched: a \`--frozen-run\` made before it is not reused for that stage (and so
for the stages after it), and \`verify --rederive\` names its nodes as made by another version. The run format
tag (\`run@N\` in the header) changes only when the layout of a run directory, the journal, the manifest, the
node record or the key rule changes — never for a stage version.`;

/** The Markdown between the markers. */
export function catalogueMarkdown(stages: readonly AnyStageDef[] = STAGES): string {
  const lines = [
    BEGIN,
    "",
    "## Stage catalogue",
    "",
    "Generated from the stage declarations by `scripts/gen_stage_docs.ts`; do not edit by hand. Each stage's",
    "params and outputs have a JSON Schema in `docs/schemas/stages/<stage>.json`. *Provider* stages call a",
    "model provider, an outside engine or the file system (or measure time); `verify --rederive` re-executes",
    "every other stage from its stored inputs. Inputs ending in `*` are families (`score:*` stands for one",
    "`score:<row>` input per answer row). Text outputs are stored as their exact UTF-8 bytes (the published",
    "files); every other output is canonical JSON.",
    "",
    POLICY,
    "",
  ];
  for (const def of stages) {
    lines.push(`### \`${def.name}\` (version ${def.version})`, "");
    lines.push(`${def.doc}`, "");
    lines.push(`- Provider: ${def.provider ? "yes (not re-derived)" : "no (re-derived)"}`);
    if (def.reuseFrozen === false) lines.push("- Never reused from a frozen run (always run afresh)");
    const params = jsonSchema(def.params) as { properties?: Record<string, unknown> };
    const names = Object.keys(params.properties ?? {});
    lines.push(`- Params: ${names.length ? names.map((n) => `\`${n}\``).join(", ") : "see the schema"}`);
    lines.push(
      `- Inputs: ${
        def.inputs.map((n) => `\`${n}\`${(def.textInputs ?? []).includes(n) ? " (text)" : ""}`).join(", ") ||
        "none"
      }`,
    );
    lines.push(`- Schema: [\`docs/schemas/stages/${def.name}.json\`](schemas/stages/${def.name}.json)`, "");
    lines.push("| output | stored as | holds |", "| --- | --- | --- |");
    for (const [name, spec] of Object.entries(def.outputs)) {
      lines.push(`| \`${name}\` | ${spec.kind === "text" ? "text" : "canonical JSON"} | ${spec.doc} |`);
    }
    lines.push("");
  }
  lines.push(END);
  return lines.join("\n");
}

/** Every generated file: path → content. */
export function generatedFiles(current: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const def of STAGES) {
    files.set(join(SCHEMA_DIR, `${def.name}.json`), JSON.stringify(stageSchema(def), null, 2) + "\n");
  }
  files.set(FORMAT_MD, withCatalogue(current));
  return files;
}

/** `text` with its catalogue section replaced (a file without markers gets a title and the section). */
export function withCatalogue(text: string): string {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) {
    const head = text.trim() === "" ? "# compaction-bench run format\n" : text.trimEnd() + "\n";
    return `${head}\n${catalogueMarkdown()}\n`;
  }
  return text.slice(0, begin) + catalogueMarkdown() + text.slice(end + END.length);
}

async function readOr(path: string, fallback: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return fallback;
    throw error;
  }
}

/** The generated files that differ from what is on disk (and stale schema files no stage has). */
export async function staleFiles(): Promise<string[]> {
  const files = generatedFiles(await readOr(FORMAT_MD, ""));
  const stale: string[] = [];
  for (const [path, content] of files) if ((await readOr(path, "")) !== content) stale.push(path);
  for await (const entry of Deno.readDir(SCHEMA_DIR)) {
    const path = join(SCHEMA_DIR, entry.name);
    if (!files.has(path)) stale.push(path);
  }
  return stale;
}

if (import.meta.main) {
  if (Deno.args.includes("--check")) {
    const stale = await staleFiles().catch((error) => {
      if (error instanceof Deno.errors.NotFound) return [SCHEMA_DIR];
      throw error;
    });
    for (const path of stale) console.log(`stale: ${path}`);
    Deno.exit(stale.length > 0 ? 1 : 0);
  }
  await Deno.mkdir(SCHEMA_DIR, { recursive: true });
  for await (const entry of Deno.readDir(SCHEMA_DIR)) {
    if (entry.name.endsWith(".json")) await Deno.remove(join(SCHEMA_DIR, entry.name));
  }
  for (const [path, content] of generatedFiles(await readOr(FORMAT_MD, ""))) {
    await Deno.writeTextFile(path, content);
  }
  console.log(`wrote ${FORMAT_MD} (stage catalogue) and ${STAGES.length} schema(s) under ${SCHEMA_DIR}`);
}
