/**
 * `.ci/ignored_tests`: CI lists every ignored test with why and fails on any it does not allow. The browser
 * tests may be ignored only while Chromium is absent, the single-binary test only without DENORT_BIN; any
 * other ignored test, or a count that does not match the names, fails the build.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./helpers/spawn.ts";

const dir = await Deno.makeTempDir({ prefix: "ci_ignored_tests_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

const BROWSER =
  "./tests/report_explorer_browser.test.ts => the hotpot report explorer renders ... ignored (0ms)";
const COMPILE = "./tests/compile_binary.test.ts => the single binary builds ... ignored (0ms)";
const OTHER = "./tests/hotpot_select.test.ts => selection is frozen ... ignored (0ms)";

async function check(lines: string[], count: number, env: Record<string, string>) {
  const log = join(dir, `log-${crypto.randomUUID()}`);
  await Deno.writeTextFile(log, lines.join("\n") + "\n");
  const output = await new Deno.Command("bash", {
    args: [join(ROOT, ".ci", "ignored_tests"), log, String(count)],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    clearEnv: true,
    stdout: "piped",
  }).output();
  return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
}

Deno.test("a browser test ignored without Chromium is allowed and printed loudly with the reason", async () => {
  const missing = join(dir, "no-chromium");
  const result = await check([BROWSER, COMPILE], 2, { CHROMIUM_BIN: missing });
  assert.equal(result.code, 0, result.stdout);
  assert.match(result.stdout, /IGNORED TESTS: 2 \(not run, not counted as passed\)/);
  assert.match(result.stdout, new RegExp(`why: no Chromium at ${missing}.*NOT tested in a browser`));
  assert.match(result.stdout, /why: DENORT_BIN is not set/);
});

Deno.test("a browser test ignored while Chromium is there, or any other ignored test, fails", async () => {
  const fake = join(dir, "chromium");
  await Deno.writeTextFile(fake, "#!/bin/sh\n");
  await Deno.chmod(fake, 0o755);
  const present = await check([BROWSER], 1, { CHROMIUM_BIN: fake });
  assert.equal(present.code, 1);
  assert.match(present.stdout, /why: not allowed/);
  const other = await check([OTHER], 1, { CHROMIUM_BIN: join(dir, "none") });
  assert.equal(other.code, 1);
  const miscounted = await check([BROWSER], 2, { CHROMIUM_BIN: join(dir, "none") });
  assert.equal(miscounted.code, 1);
  assert.match(miscounted.stdout, /the summary counts 2 ignored test\(s\) but 1 were named/);
  const none = await check(["ok | 3 passed | 0 failed"], 0, {});
  assert.equal(none.code, 0);
  assert.equal(none.stdout, "");
});
