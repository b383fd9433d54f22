/**
 * Writes `bpe_ranks.bin` beside a tokenizer's `tokenizer.json` (default: the shipped Qwen3 tokenizer), the
 * prebuilt merges the token counter reads instead of building the library's vocabulary and merge maps at every start (see
 * `src/tokens/bpe_ranks.ts`). Refuses, writing nothing, a tokenizer whose counts would not be exact from it.
 *
 * Usage: `deno run --allow-read --allow-write scripts/gen_bpe_ranks.ts [TOKENIZER_DIR]`
 *
 * @module
 */
import { createHash } from "node:crypto";
import { Tokenizer } from "@huggingface/tokenizers";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { BPE_RANKS_FILE, bpeRanksBytes } from "../src/tokens/bpe_ranks.ts";

if (import.meta.main) {
  const dir = Deno.args[0] ?? DEFAULT_TOKENIZER_DIR;
  const bytes = await Deno.readFile(`${dir}/tokenizer.json`);
  const json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  const config = JSON.parse(await Deno.readTextFile(`${dir}/tokenizer_config.json`));
  new Tokenizer(json, config); // the library must build from this file (it does so for token ids)
  const made = bpeRanksBytes(json, createHash("sha256").update(bytes).digest("hex"));
  if ("refused" in made) {
    console.error(`${dir}: no ${BPE_RANKS_FILE}: ${made.refused}`);
    Deno.exit(1);
  }
  await Deno.writeFile(`${dir}/${BPE_RANKS_FILE}`, made.bytes);
  console.log(`wrote ${dir}/${BPE_RANKS_FILE}`);
}
