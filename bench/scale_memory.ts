/**
 * Memory and time as the work grows (issue: flat memory in the number of questions). Generates a 7,405-record
 * HotpotQA-like dataset (`hotpot generate`, the size of the HotpotQA distractor dev split), then measures, each
 * command in its own process through GNU `time` (peak RSS and wall time):
 * - `hotpot collect --scripted` of 60 questions over the 7,405 records (target: peak RSS ≤ 400 MB);
 * - `hotpot run --reference` of 60 and 480 questions (and 2,000 with `--large`). Targets: peak RSS ≤ 600 MB
 *   at every size (and, as the "done when" says, 480 within 1.2× (+50 MB) of 60 and under 700 MB),
 *   time per question flat within 20%.
 * Prints the figures next to their targets; it measures, it never fails a build.
 *
 * Usage: `deno run -A bench/scale_memory.ts [--sizes 60,480] [--large] [--json]`
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const RECORDS = 7405;

/** Peak RSS (MiB) and wall time (s) of one command. */
export interface Measured {
  rss_mib: number;
  seconds: number;
}

/** Runs `deno run -A main.ts ...args` under GNU time; throws with its last output line when it fails. */
export async function measureCli(args: string[]): Promise<Measured> {
  const dir = await Deno.makeTempDir({ prefix: "scale-time-" });
  try {
    const timeFile = join(dir, "time");
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%M %e", "-o", timeFile, Deno.execPath(), "run", "-A", MAIN, ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      const text = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1);
      throw new Error(`${args.slice(0, 2).join(" ")} failed: ${text}`);
    }
    const [kib, seconds] = (await Deno.readTextFile(timeFile)).trim().split(/\s+/).map(Number);
    return { rss_mib: Math.round(kib / 1024), seconds };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      sizes: { type: "string", default: "60,480" },
      large: { type: "boolean" },
      json: { type: "boolean" },
    },
  });
  const sizes = values.sizes.split(",").map(Number);
  if (values.large) sizes.push(2000);
  const tmp = await Deno.makeTempDir({ prefix: "scale-memory-" });
  try {
    const dataset = join(tmp, "ds.parquet");
    const generate = await measureCli(["hotpot", "generate", "--records", String(RECORDS), "--out", dataset]);
    const figures: Record<string, unknown> = { records: RECORDS, generate };
    const runs: Record<number, Measured & { per_question_s: number }> = {};
    for (const n of sizes) {
      const corpus = join(tmp, `c${n}`);
      const collect = await measureCli([
        "hotpot",
        "collect",
        "-q",
        "--scripted",
        "--dataset",
        dataset,
        "--questions",
        String(n),
        "--output",
        corpus,
      ]);
      figures[`collect_${n}`] = collect;
      const run = await measureCli([
        "hotpot",
        "run",
        "-q",
        "--reference",
        "--corpus",
        join(corpus, "corpus.json"),
        "--output",
        join(tmp, `r${n}`),
      ]);
      runs[n] = { ...run, per_question_s: run.seconds / n };
      await Deno.remove(join(tmp, `r${n}`), { recursive: true });
    }
    figures.runs = runs;
    if (values.json) console.log(JSON.stringify(figures));
    else {
      const first = runs[sizes[0]];
      for (const [name, value] of Object.entries(figures)) {
        if (name.startsWith("collect_")) {
          const m = value as Measured;
          console.log(
            `hotpot ${
              name.replace("_", " ")
            } q over ${RECORDS} records: peak RSS ${m.rss_mib} MiB (target ≤ 400 MB), ${m.seconds} s`,
          );
        }
      }
      for (const n of sizes) {
        const r = runs[n];
        console.log(
          `hotpot run ${n} q: peak RSS ${r.rss_mib} MiB (target ≤ 600 MB and ≤ 1.2 × ${first.rss_mib} + 50 = ${
            Math.round(1.2 * first.rss_mib + 50)
          }), ${(1000 * r.per_question_s).toFixed(0)} ms/question (target ≤ 1.2 × ${
            (1000 * first.per_question_s).toFixed(0)
          })`,
        );
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}
