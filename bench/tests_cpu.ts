/**
 * The test suite's cost as CPU, which a shared machine does not blur as it blurs wall time: runs each test file
 * (or the files named) alone, without type-checking (`deno test` checks the whole graph once, apart), under
 * GNU time, and prints per file its CPU (user + system, its subprocesses included) and wall time, slowest
 * first, then the total and the wall time it bounds on 2 idle cores (total / 2: the suite runs files in
 * parallel, one per core). Needs /usr/bin/time. Not run by `deno task bench` unless named: it takes as long
 * as the suite, one file at a time.
 *
 * Usage: deno run -A bench/tests_cpu.ts [tests/some.test.ts ...] [--json]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";

/** One test file's figures. */
export interface TestFileCost {
  file: string;
  cpu_s: number;
  wall_s: number;
  passed: boolean;
}

const root = fileURLToPath(new URL("../", import.meta.url));

/** Runs `file` (relative to the repository) alone under GNU time. */
export async function testFileCost(file: string): Promise<TestFileCost> {
  const out = await Deno.makeTempFile({ prefix: "tests_cpu_" });
  try {
    const status = await new Deno.Command("/usr/bin/time", {
      args: [
        "-f",
        "%U %S %e",
        "-o",
        out,
        Deno.execPath(),
        "test",
        "-A",
        "--no-check",
        "--unstable-worker-options",
        file,
      ],
      cwd: root,
      stdout: "null",
      stderr: "null",
    }).spawn().status;
    const [user, system, wall] = (await Deno.readTextFile(out)).trim().split("\n").at(-1)!.split(" ").map(
      Number,
    );
    return { file, cpu_s: user + system, wall_s: wall, passed: status.success };
  } finally {
    await Deno.remove(out);
  }
}

if (import.meta.main) {
  const json = Deno.args.includes("--json");
  let files = Deno.args.filter((a) => a !== "--json");
  if (files.length === 0) {
    for await (const entry of Deno.readDir(join(root, "tests"))) {
      if (entry.isFile && entry.name.endsWith(".test.ts")) files.push(`tests/${entry.name}`);
    }
    files = files.sort();
  }
  const costs: TestFileCost[] = [];
  for (const file of files) costs.push(await testFileCost(file));
  costs.sort((a, b) => b.cpu_s - a.cpu_s);
  const total = costs.reduce((sum, c) => sum + c.cpu_s, 0);
  if (json) console.log(JSON.stringify({ files: costs, total_cpu_s: total }, null, 2));
  else {
    for (const c of costs) {
      console.log(
        `${c.cpu_s.toFixed(1).padStart(6)} s CPU ${c.wall_s.toFixed(1).padStart(7)} s wall  ${c.file}${
          c.passed ? "" : "  (FAILED)"
        }`,
      );
    }
    console.log(
      `total ${total.toFixed(0)} s CPU over ${costs.length} file(s): at least ${
        (total / 2 / 60).toFixed(1)
      } min on 2 idle cores`,
    );
  }
}
