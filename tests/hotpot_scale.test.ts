import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

Deno.test("selection over 7,405 generated Parquet records stays within 10 s and 1 GiB", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-run", "bench/select.ts", "--json"],
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const r = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(r.records, 7405);
  assert.equal(r.selected, 30);
  assert.ok(r.load_select_ms <= 10_000, `load + select took ${r.load_select_ms} ms`);
  assert.ok(r.peak_rss_bytes <= 2 ** 30, `peak RSS ${r.peak_rss_bytes} bytes`);
});
