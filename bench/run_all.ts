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
  if (entry.isFile && entry.name.endsWith(".ts") && entry.name !== "run_all.ts") scripts.push(entry.name);
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
