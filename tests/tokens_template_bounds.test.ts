/**
 * A chat template is a program from the tokenizer directory: one that loops or grows a string without bound is
 * stopped by its work bound (never hangs the process) and refused when the tokenizer is loaded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { DEFAULT_TOKENIZER_DIR } from "../src/assets.ts";
import { UsageError } from "../src/errors.ts";
import { renderBounded, TemplateLimitError } from "../src/tokens/template.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";

const BOUNDS = { steps: 100_000, chars: 10_000 };

Deno.test("a bounded render equals the library's own render for an ordinary template", () => {
  const source =
    "{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}{% if not loop.last %}\n{% endif %}" +
    "{% endfor %}{% for i in range(3) %}{{ i }}{% endfor %}{{ none is none }}";
  const items = { messages: [{ role: "user", content: " hi " }, { role: "assistant", content: "yo" }] };
  const template = new Template(source);
  assert.equal(renderBounded(template, items, BOUNDS), template.render(items));
});

Deno.test("huge ranges, nested loops and doubling strings are stopped by the bound", () => {
  const hostile = [
    "{% for i in range(1000000000000) %}x{% endfor %}",
    "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}",
    "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
  ];
  for (const source of hostile) {
    assert.throws(
      () => renderBounded(new Template(source), {}, BOUNDS),
      TemplateLimitError,
      source,
    );
  }
});

Deno.test("a tokenizer whose template loops is refused at load, naming its config file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "template_bounds_" });
  try {
    await Deno.copyFile(join(DEFAULT_TOKENIZER_DIR, "tokenizer.json"), join(dir, "tokenizer.json"));
    const config = JSON.parse(await Deno.readTextFile(join(DEFAULT_TOKENIZER_DIR, "tokenizer_config.json")));
    config.chat_template =
      "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}";
    await Deno.writeTextFile(join(dir, "tokenizer_config.json"), JSON.stringify(config));
    await assert.rejects(loadTokenCounter(dir), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(
        error.message,
        /tokenizer_config\.json: the chat template did not finish within \d+ evaluation steps/,
      );
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
