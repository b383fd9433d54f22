import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

// Its time (target ≤ 10 s) is printed by bench/select.ts, not asserted here.
Deno.test("selection over 7,405 generated Parquet records selects 30 questions within 1 GiB", async () => {
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
  assert.ok(r.peak_rss_bytes <= 2 ** 30, `peak RSS ${r.peak_rss_bytes} bytes`);
});
