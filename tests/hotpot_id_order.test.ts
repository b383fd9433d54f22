/**
 * results.json's question order: `compareQuestionIds` (code units for plain ids under a collation that orders
 * them so) gives exactly the order of `localeCompare` with ties by code units, in this process's locale and
 * under locales whose collation differs.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { compareQuestionIds } from "../src/suites/hotpot/run/stages/aggregate.ts";

const byLocale = (a: string, b: string) => a.localeCompare(b) || (a < b ? -1 : a > b ? 1 : 0);

function ids(seed: number): string[] {
  let x = seed;
  const next = () => (x = (x * 48271) % 2147483647);
  const alphabets = ["0123456789abcdef", "0123456789abcdefghijklmnopqrstuvwxyz", "aijsyz", "Aa_-. 9é"];
  const out = ["", "0", "a", "aa", "ab", "z", "y1", "j1", "i1"];
  for (let i = 0; i < 400; i++) {
    const alphabet = alphabets[i % alphabets.length];
    const length = 1 + (next() % 24);
    out.push(Array.from({ length }, () => alphabet[next() % alphabet.length]).join(""));
  }
  return out;
}

Deno.test("question ids sort as localeCompare (ties by code units) sorts them", () => {
  for (const seed of [1, 2, 3]) {
    const list = ids(seed);
    assert.deepEqual([...list].sort(compareQuestionIds), [...list].sort(byLocale));
  }
});

Deno.test("under other locales' collations too (Lithuanian y before j, Danish aa after z)", async () => {
  const module = fileURLToPath(new URL("../src/suites/hotpot/run/stages/aggregate.ts", import.meta.url));
  const script = `import { compareQuestionIds } from ${JSON.stringify(module)};
const list = ["y1", "j1", "i1", "aa", "ab", "z", "5a8b57f25542995d1e6f1371", "5a8b57f2", "0", "a"];
const byLocale = (a, b) => a.localeCompare(b) || (a < b ? -1 : a > b ? 1 : 0);
console.log(JSON.stringify([[...list].sort(compareQuestionIds), [...list].sort(byLocale)]));`;
  for (const lang of ["lt_LT.UTF-8", "da_DK.UTF-8", "C.UTF-8", "en_GB.UTF-8"]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=js", script],
      env: { LANG: lang, LC_ALL: lang },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const [ours, theirs] = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.deepEqual(ours, theirs, lang);
  }
});
