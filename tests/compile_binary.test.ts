import assert from "node:assert/strict";
import { join } from "node:path";
import { banner, compileBinary, denortProblem } from "../scripts/compile.ts";

const NAME = "the single binary builds and runs demo and verify with no files beside it";
const denortBin = Deno.env.get("DENORT_BIN");
const problem = await denortProblem(denortBin);

if (problem !== null) {
  console.error(banner([
    "SKIPPED: single-binary test — no denort runtime available (set DENORT_BIN=/path/to/denort)",
    problem,
  ]));
  Deno.test({ name: NAME, ignore: true, fn() {} });
} else {
  Deno.test(NAME, async () => {
    const dir = await Deno.makeTempDir({ prefix: "compile-binary-" });
    try {
      const binary = join(dir, "compaction-bench");
      await compileBinary(binary, denortBin!);
      // Run from an empty directory with an empty environment: everything must be embedded.
      const work = join(dir, "work");
      await Deno.mkdir(work);
      const run = async (args: string[]) => {
        const output = await new Deno.Command(binary, {
          args,
          cwd: work,
          clearEnv: true,
          stdout: "piped",
          stderr: "piped",
        })
          .output();
        const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
        return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
      };
      const version = await run(["--version"]);
      assert.equal(version.code, 0, version.stderr);
      assert.match(version.stdout, /^compaction-bench /);
      const demo = await run(["demo", "--output", join(work, "run"), "--quiet"]);
      assert.equal(demo.code, 0, `demo: ${demo.stdout}\n${demo.stderr}`);
      const verify = await run(["verify", join(work, "run")]);
      assert.equal(verify.code, 0, `verify: ${verify.stdout}\n${verify.stderr}`);
      assert.match(verify.stdout, /ok: every check holds/);
      const refused = await run(["demo", "--output", join(work, "run"), "--quiet"]);
      assert.equal(refused.code, 2, "the binary refuses an existing output directory too");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
