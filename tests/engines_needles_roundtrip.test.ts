/**
 * Needles round-trip: a transcript file written by `engines generate` ({messages, needles}) keeps its needles
 * when read back with `engines run --transcript` (the same recall as the generated run, and the report says
 * where they came from); needles that do not match the file are refused; a transcript without them says
 * needles n/a and why.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { importTranscriptText } from "../src/data/transcripts/import.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { importedNeedlesNote } from "../src/suites/engines/suite.ts";
import { runCli } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "engines_needles_roundtrip_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test("a {messages, needles} file is imported with its needles, checked against its messages", () => {
  const generated = generateTranscript({ turns: 30, needles: 4 });
  const text = JSON.stringify({ messages: generated.messages, needles: generated.needles });
  const imported = importTranscriptText(text, "g.json");
  assert.equal(imported.format, "openai");
  assert.deepEqual(imported.needles, generated.needles);
  assert.match(importedNeedlesNote(imported), /needles: 4 from the file's 'needles' field/);

  const moved = structuredClone(generated.needles);
  moved[1].message_index = (moved[1].message_index + 1) % generated.messages.length;
  assert.throws(
    () => importTranscriptText(JSON.stringify({ messages: generated.messages, needles: moved }), "g.json"),
    /g\.json: needles\[1\] \([^)]+\): its fact is not in messages\[\d+\]/,
  );
  const past = structuredClone(generated.needles);
  past[0].message_index = generated.messages.length;
  assert.throws(
    () => importTranscriptText(JSON.stringify({ messages: generated.messages, needles: past }), "g.json"),
    /needles\[0\] .*past the last message/,
  );
  assert.throws(
    () =>
      importTranscriptText(JSON.stringify({ messages: generated.messages, needles: [{ id: 1 }] }), "g.json"),
    /g\.json: needles\[0\]\.id/,
  );

  const bare = importTranscriptText(JSON.stringify({ messages: generated.messages }), "m.json");
  assert.equal(bare.needles, undefined);
  assert.match(importedNeedlesNote(bare), /^needles n\/a: a openai transcript carries no planted facts/);
});

Deno.test("engines generate --out, then engines run --transcript: the same needle recall as the generated run", async () => {
  const file = join(dir, "g.json");
  const generate = await runCli(["engines", "generate", "--turns", "60", "--needles", "5", "--out", file]);
  assert.equal(generate.code, 0, generate.stderr);
  const common = [
    "--reference",
    "-q",
    "--no-qa",
    "--repeats",
    "1",
    "--engine",
    "truncate",
    "--engine",
    "hermes-like",
  ];
  const gen = await runCli([
    "engines",
    "run",
    ...common,
    "--turns",
    "60",
    "--needles",
    "5",
    "--output",
    join(dir, "gen"),
  ]);
  assert.equal(gen.code, 0, gen.stderr);
  const imp = await runCli(["engines", "run", ...common, "--transcript", file, "--output", join(dir, "imp")]);
  assert.equal(imp.code, 0, imp.stderr);
  type Results = { engines: { engine: string; needles: { recall: number | null; total?: number } }[] };
  const recall = async (run: string) => {
    const results: Results = JSON.parse(await Deno.readTextFile(join(dir, run, "results.json")));
    return Object.fromEntries(results.engines.map((r) => [r.engine, r.needles.recall]));
  };
  const fromFile = await recall("imp");
  assert.deepEqual(fromFile, await recall("gen"));
  for (const value of Object.values(fromFile)) assert.equal(typeof value, "number");
  const report = await Deno.readTextFile(join(dir, "imp", "REPORT.md"));
  assert.match(report, /imported openai transcript g\.json; needles: 5 from the file's 'needles' field/);
});
