/**
 * Outside processes under the program's own permissions (the launcher's and the single binary's: no
 * `--allow-all`, so Deno refuses `/proc`): a call still runs to its end and answers, its marked-process sweep
 * skipped rather than failing the call.
 */
import assert from "node:assert/strict";

const MODULE = new URL("../src/methods/engines/outside_process.ts", import.meta.url).href;

Deno.test("an outside process runs to its end without --allow-all (no /proc for the marker sweep)", async () => {
  const script = `import { runOutsideProcess } from ${JSON.stringify(MODULE)};\n` +
    `const outcome = await runOutsideProcess({ argv: ["sh", "-c", "cat; echo done"], env: { PATH: Deno.env.get("PATH") ?? "" },\n` +
    `  stdin: new TextEncoder().encode("in "), timeoutMs: 20000 });\n` +
    `console.log(JSON.stringify({ kind: outcome.kind, out: "stdout" in outcome ? new TextDecoder().decode(outcome.stdout) : "" }));\n`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-run", "--allow-sys", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(script));
  await writer.close();
  const output = await child.output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), { kind: "exited", out: "in done\n" });
});
