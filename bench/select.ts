/**
 * Selection at scale: generates 7,405 HotpotQA-format records (the size of the HotpotQA distractor dev
 * set), writes them as Hugging Face layout Parquet to a temp file, then loads and selects with the default
 * protocol. Prints the wall time of load + select and the peak RSS seen (targets: ≤ 10 s, ≤ 1 GiB).
 *
 * Usage: deno run --allow-read --allow-write bench/select.ts [--json]
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateHotpotRecords } from "../src/data/hotpot_generate.ts";
import { loadHotpot } from "../src/data/hotpot_load.ts";
import { writeHotpotParquet } from "../src/data/hotpot_parquet_write.ts";
import { selectQuestions } from "../src/suites/hotpot/collect/select.ts";

/** Records generated (HotpotQA distractor dev set size). */
export const SCALE_RECORDS = 7405;

/** The figures of one run of the selection benchmark. */
export interface SelectBenchResult {
  records: number;
  parquet_bytes: number;
  generate_ms: number;
  load_ms: number;
  select_ms: number;
  load_select_ms: number;
  peak_rss_bytes: number;
  selected: number;
}

/** Loads and selects `path` in this process; returns its figures with the peak RSS of this process. */
export async function measureSelect(path: string): Promise<Omit<SelectBenchResult, "generate_ms">> {
  let peak = Deno.memoryUsage().rss;
  const sample = () => {
    peak = Math.max(peak, Deno.memoryUsage().rss);
  };
  const timer = setInterval(sample, 20);
  try {
    let t = performance.now();
    const records = await loadHotpot(path);
    const loadMs = performance.now() - t;
    sample();
    t = performance.now();
    const result = selectQuestions(records);
    const selectMs = performance.now() - t;
    sample();
    if (!result.quota_met) {
      throw new Error(`selection did not meet its quota: ${JSON.stringify(result.counts)}`);
    }
    return {
      records: records.length,
      parquet_bytes: (await Deno.stat(path)).size,
      load_ms: Math.round(loadMs),
      select_ms: Math.round(selectMs),
      load_select_ms: Math.round(loadMs + selectMs),
      peak_rss_bytes: peak,
      selected: result.selected.length,
    };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Runs the benchmark once: generates the Parquet file here, then loads and selects it in a fresh process, so
 * the peak RSS is that of load + select alone (not of generating and writing the data).
 */
export async function benchSelect(count = SCALE_RECORDS): Promise<SelectBenchResult> {
  const dir = await Deno.makeTempDir({ prefix: "hotpot_select_bench_" });
  try {
    const path = join(dir, "generated.parquet");
    const t = performance.now();
    await writeHotpotParquet(generateHotpotRecords(count, "bench-select"), path);
    const generateMs = performance.now() - t;
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-read", fileURLToPath(import.meta.url), "--measure", path],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!child.success) throw new Error(new TextDecoder().decode(child.stderr));
    const measured = JSON.parse(new TextDecoder().decode(child.stdout));
    return { ...measured, generate_ms: Math.round(generateMs) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--measure");
  if (at >= 0) {
    console.log(JSON.stringify(await measureSelect(Deno.args[at + 1])));
    Deno.exit(0);
  }
  const r = await benchSelect();
  if (Deno.args.includes("--json")) console.log(JSON.stringify(r));
  else {
    console.log(
      `select bench: ${r.records} records (${(r.parquet_bytes / 2 ** 20).toFixed(1)} MiB Parquet), ` +
        `load ${r.load_ms} ms + select ${r.select_ms} ms = ${r.load_select_ms} ms (target ≤ 10000), ` +
        `peak RSS of load + select ${
          (r.peak_rss_bytes / 2 ** 20).toFixed(0)
        } MiB (target ≤ 1024); generation took ${r.generate_ms} ms`,
    );
  }
}
