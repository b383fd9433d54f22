/**
 * The bounded JSON reader (src/core/json_read.ts) against plain `JSON.parse` on large real files: the Qwen3
 * tokenizer (11 MB, one wide object of 150 k keys), the demo HotpotQA dataset (1.2 MB of nested records), and
 * any files given as arguments (a run's journal lines, a corpus.json, a results.json). Prints the median of
 * alternated rounds, in ms, and the ratio.
 *
 * Usage: deno run -A bench/json_read.ts [FILE...]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { parseJson } from "../src/core/json_read.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const files = Deno.args.length > 0
  ? Deno.args
  : [`${root}fixtures/tokenizers/qwen3/tokenizer.json`, `${root}fixtures/hotpot/demo.json`];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

for (const file of files) {
  const text = await Deno.readTextFile(file);
  // A .jsonl file is read line by line, as the journal is.
  const texts = file.endsWith(".jsonl") ? text.split("\n").filter((l) => l !== "") : [text];
  const plain: number[] = [];
  const bounded: number[] = [];
  for (let round = 0; round < 9; round++) {
    let t = performance.now();
    for (const t of texts) JSON.parse(t);
    plain.push(performance.now() - t);
    t = performance.now();
    for (const t of texts) parseJson(t);
    bounded.push(performance.now() - t);
  }
  const a = median(plain);
  const b = median(bounded);
  console.log(
    `${file.replace(root, "")}: ${(text.length / 1e6).toFixed(1)} M chars, ${texts.length} text(s): ` +
      `JSON.parse ${a.toFixed(1)} ms, parseJson ${b.toFixed(1)} ms (${(b / a).toFixed(2)}x)`,
  );
}
