/**
 * Outside text printed on a terminal or written into Markdown escapes control characters and HTML: an engine's
 * `skipped` reason with ESC bytes, `<script>` and `<img onerror>` reaches neither stdout nor REPORT.md raw, and
 * a file name holding a line break and ESC found by `verify` is printed escaped (it cannot forge a line).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { markdownSafe, terminalSafe } from "../src/core/printable.ts";
import { ROOT, runCli } from "./helpers/spawn.ts";

const HOSTILE =
  "\u001b[2J\u001b[31mred\u0007 <script>alert(1)</script> <img src=x onerror=alert(2)> \u202eevil";

Deno.test("terminalSafe and markdownSafe show controls as escapes and HTML as text", () => {
  assert.equal(
    terminalSafe("a\nb\tc\u0000d\u001b[1m\u009b\u202e"),
    "a\\nb\\tc\\u0000d\\u001b[1m\\u009b\\u202e",
  );
  assert.equal(terminalSafe("plain ✓ text, ünïcode 数字"), "plain ✓ text, ünïcode 数字");
  assert.equal(markdownSafe("<b>x</b> & y | z\n"), "&lt;b&gt;x&lt;/b&gt; &amp; y \\| z\\n");
});

Deno.test("an engine's hostile skipped reason reaches stdout and REPORT.md escaped", async () => {
  const dir = await Deno.makeTempDir({ prefix: "printable_" });
  try {
    const script = join(dir, "skip.py");
    await Deno.writeTextFile(
      script,
      `import json, sys\njson.load(sys.stdin)\njson.dump({"skipped": ${
        JSON.stringify(HOSTILE)
      }}, sys.stdout)\n`,
    );
    const out = join(dir, "run");
    const result = await runCli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--no-qa",
      "--repeats",
      "0",
      "--turns",
      "8",
      "--engine",
      `hostile=exec:python3 ${script}`,
      "--output",
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const report = await Deno.readTextFile(join(out, "REPORT.md"));
    for (const [where, text] of [["stdout", result.stdout], ["REPORT.md", report]]) {
      assert.ok(
        ![..."\u001b\u0007\u202e"].some((char) => text.includes(char)),
        `${where} holds a raw control character`,
      );
      assert.ok(text.includes("skipped"), `${where} names the skip`);
    }
    assert.ok(!/<script|<img/i.test(report), "REPORT.md holds live HTML");
    assert.match(report, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(result.stdout, /\\u001b\[31mred/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("verify and the auditor print a file name holding a line break and ESC escaped, never as a line of its own", async () => {
  const dir = await Deno.makeTempDir({ prefix: "printable_verify_" });
  try {
    const out = join(dir, "run");
    const made = await runCli([
      "engines",
      "run",
      "--reference",
      "-q",
      "--no-qa",
      "--repeats",
      "0",
      "--turns",
      "8",
      "--engine",
      "truncate",
      "--output",
      out,
    ]);
    assert.equal(made.code, 0, made.stderr);
    await Deno.chmod(out, 0o755);
    await Deno.writeTextFile(join(out, "x\nok: every check holds\u001b[2J"), "planted");
    const result = await runCli(["verify", out]);
    assert.notEqual(result.code, 0);
    const lines = result.stdout.split("\n");
    assert.ok(!lines.some((line) => line.startsWith("ok: every check holds")), result.stdout);
    assert.ok(!result.stdout.includes("\u001b"), "a raw ESC was printed");
    assert.match(result.stdout, /x\\nok: every check holds\\u001b\[2J/);
    const audit = await new Deno.Command("python3", { args: ["scripts/audit_run.py", out], cwd: ROOT })
      .output();
    const audited = new TextDecoder().decode(audit.stdout);
    assert.equal(audit.code, 1, audited);
    assert.ok(!audited.split("\n").some((line) => line.startsWith("ok: every check holds")), audited);
    assert.ok(!audited.includes("\u001b"), "the auditor printed a raw ESC");
    assert.match(audited, /x\\nok: every check holds\\u001b\[2J/);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(async () => {
      await new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).output();
      await Deno.remove(dir, { recursive: true });
    });
  }
});
