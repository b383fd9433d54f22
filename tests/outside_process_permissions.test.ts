/**
 * Outside processes under the program's own permissions (the launcher's and the single binary's: no
 * `--allow-all`, so Deno refuses `/proc`): a call still runs to its end and answers, its marked-process sweep
 * skipped rather than failing the call.
 */
import assert from "node:assert/strict";
import { sleepingWith, survivors } from "./helpers/processes.ts";

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

Deno.test("without --allow-all, a double-forked grandchild in a session of its own ends with the call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cb_grandchild_" });
  const token = `cb-grandchild-${crypto.randomUUID()}`;
  // The grandchild says it started, would write a file later, and waits with the token in its command line.
  const grandchild = [
    "import os, sys, time",
    "if os.fork() == 0:",
    "    os.setsid()",
    "    if os.fork() == 0:",
    `        open(${JSON.stringify(dir)} + "/started", "w").write("yes")`,
    "        if os.fork() == 0:",
    "            time.sleep(1.5)",
    `            open(${JSON.stringify(dir)} + "/late", "w").write("still here")`,
    "            os._exit(0)",
    "        " + sleepingWith(token),
    "    os._exit(0)",
    "os.wait()",
    `while not os.path.exists(${JSON.stringify(dir)} + "/started"): time.sleep(0.01)`,
    "print('answered')",
  ].join("\n");
  const script = `import { runOutsideProcess } from ${JSON.stringify(MODULE)};\n` +
    `const outcome = await runOutsideProcess({ argv: ["python3", "-c", ${JSON.stringify(grandchild)}],\n` +
    `  env: { PATH: Deno.env.get("PATH") ?? "" }, stdin: new Uint8Array(), timeoutMs: 20000 });\n` +
    `console.log(JSON.stringify({ kind: outcome.kind }));\n`;
  try {
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
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), { kind: "exited" });
    assert.equal(await Deno.readTextFile(`${dir}/started`), "yes");
    assert.deepEqual(await survivors(token), [], "the grandchild outlived the call");
    await new Promise((done) => setTimeout(done, 2_000));
    assert.equal(
      await Deno.stat(`${dir}/late`).then(() => true, () => false),
      false,
      "a descendant wrote later",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
