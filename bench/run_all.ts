/**
 * `deno task bench`: runs every benchmark script in bench/ (each in its own process, one after another, so
 * they do not compete for the 2 cores) and prints their figures. A benchmark measures; it never fails a build.
 *
 * @module
 */
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("./", import.meta.url));
const scripts: string[] = [];
for await (const entry of Deno.readDir(dir)) {
  // tests_cpu.ts runs the whole test suite one file at a time: only when named.
  const skipped = [
    "run_all.ts",
    ...(Deno.args.some((a) => a.replace(/\.ts$/, "") === "tests_cpu") ? [] : ["tests_cpu.ts"]),
  ];
  if (entry.isFile && entry.name.endsWith(".ts") && !skipped.includes(entry.name)) scripts.push(entry.name);
}
scripts.sort();
const only = Deno.args.length > 0 ? new Set(Deno.args.map((a) => a.replace(/\.ts$/, "") + ".ts")) : null;
for (const script of scripts) {
  if (only && !only.has(script)) continue;
  console.log(`\n=== bench/${script}`);
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-worker-options", `${dir}${script}`],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) console.log(`(bench/${script} exited with code ${status.code})`);
}
