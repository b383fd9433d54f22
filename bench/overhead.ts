/**
 * Scheduling overhead of `hotpot run`: with the reference model answering every request after a fixed delay
 * (`--reference-delay-ms`), the run's own wall (header `created` to manifest `finished`) should be at most
 * 1.1 × the ideal `ceil(calls / concurrency) × delay`, where `calls` counts every attempt of every request
 * record the run executed and `concurrency` is per base URL (chat and decision share the reference server).
 *
 * `--cpu`: the harness's CPU per provider call against the provider's. A `serve-reference` process is started
 * for each timed run; `hotpot run --live` calls it at `--concurrency` (default 64) over the demo corpus; each
 * process's user + system CPU from its own start to the run's end is divided by the calls, so both figures carry
 * their process's start-up (the provider's serving CPU alone is printed too). `--syscalls` runs
 * the harness under `strace -c` and prints {@link COUNTED_SYSCALLS} per call (CPU is then inflated). Both
 * figures rise with the machine's load (printed with them), and file creation costs more kernel time in a
 * directory whose ext4 group other processes just deleted many files from (ext4's `recently_deleted` scan in
 * every create and mkdir): `--dir` places the run elsewhere (a tmpfs such as /dev/shm leaves that cost out).
 * Per call the harness creates, renames and fsyncs each blob once; most `openat` and `statx` calls are
 * start-up (modules, the program's source); `futex` counts hand-offs between threads (an async file
 * operation is one each way through Deno's thread pool). Under strace every fsync is slow, so the store fsyncs
 * through the thread pool (`SyncPlace`): the counts are that path's (`perf stat` counts without the slowdown). `--questions` above the demo's 30 collects from
 * generated records, where the start-ups weigh less per call. `--repeat N` makes N timed runs and judges the
 * median of their ratios (one run's ratio moves by a few per cent with the machine).
 *
 * Usage: `deno run -A bench/overhead.ts [--questions N] [--delay-ms MS] [--concurrency N] [--json] [--keep]`
 * `[--cpu [--syscalls] [--marginal] [--dir DIR] [--repeat N]]`
 *
 * @module
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { BlobStore } from "../src/store/blob_store.ts";
import { readManifest } from "../src/store/run_dir.ts";

/** The target: run wall time at most this multiple of the ideal. */
export const OVERHEAD_TARGET_RATIO = 1.1;

/** The system calls counted per provider call (`--syscalls`), by name. */
export const COUNTED_SYSCALLS = [
  "fsync",
  "fdatasync",
  "rename",
  "openat",
  "readlink",
  "statx",
  "mkdir",
  "futex",
] as const;

/** The figures of one CPU benchmark run. */
export interface CpuPerCallResult {
  questions: number;
  concurrency: number;
  calls: number;
  user_s: number;
  sys_s: number;
  cpu_per_call_ms: number;
  /** The provider process's (`serve-reference`) CPU per call, its start-up included as the harness's is. */
  server_cpu_per_call_ms: number;
  /** The provider's CPU per call while the run was under way (its start-up left out). */
  server_serving_cpu_per_call_ms: number;
  /** The provider's start-up CPU (spawn to printing its URL), seconds. */
  server_startup_s: number;
  /** The run process's share of the two processes' CPU (start-ups included). */
  harness_share: number;
  /** Harness CPU per call at most the provider's. */
  within_target: boolean;
  /** The 1-minute load average before and after the run. */
  load: [number, number];
  /** The run directory's file system, and why creating files there may cost extra ({@link fileSystemNote}). */
  file_system: string | null;
  /** With `--marginal`: CPU per call beyond a 2-question run's (start-ups left out), and the harness's fixed s. */
  marginal?: { harness_ms: number; server_ms: number; fixed_s: number };
  /** With `--syscalls`: each counted system call of the run process (all threads), per call. */
  syscalls_per_call?: Record<string, number>;
}

/** `hotpot collect`'s default over the embedded demo data; a larger `--questions` is collected from generated records. */
const DEMO_QUESTIONS = 30;

/**
 * The file system of `dir`, and why its blob writes may cost more kernel time, or null. On an ext4 without a
 * journal (such as this project's CI machines) each fsync writes its file's data and inode on its own (no
 * journal commit to group them), and each create skips the inodes of its group deleted in the last minutes
 * (`recently_deleted`), so a run soon after many deletes (a test suite, an earlier bench run) pays more.
 */
export function fileSystemNote(dir: string): string | null {
  // Fields are space-separated, with spaces, tabs and backslashes in a mount point written as octal escapes.
  const unescape = (field: string) =>
    field.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
  const mount =
    Deno.readTextFileSync("/proc/self/mountinfo").split("\n").map((l) => l.split(" ").map(unescape))
      .filter((f) => f.length > 9 && (dir === f[4] || dir.startsWith(f[4].endsWith("/") ? f[4] : `${f[4]}/`)))
      .sort((a, b) => b[4].length - a[4].length)[0];
  if (!mount) return null;
  const sep = mount.indexOf("-");
  const [type, device] = [mount[sep + 1], mount[sep + 2]];
  if (type !== "ext4") return `${type} (${mount[4]})`;
  let journal: string;
  try {
    journal = Deno.readTextFileSync(`/sys/fs/ext4/${device.replace("/dev/", "")}/journal_task`).trim();
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return `ext4 (${mount[4]})`;
  }
  const where = mount[4];
  return journal === "<none>"
    ? `ext4 without a journal (${where}): every blob's fsync is its own write of data and inode, and ` +
      `creates cost more for minutes after many deletes there (--dir on a tmpfs leaves both out)`
    : `ext4 (${where})`;
}

/** The 1-minute load average (Linux). */
function loadAverage(): number {
  return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
}

/** User + system CPU seconds of process `pid` so far (Linux: /proc/PID/stat, clock ticks of 1/100 s). */
function processCpuSeconds(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Counts from `strace -c` output: syscall name to calls. */
function straceCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (m && m[2] !== "total") counts[m[2]] = Number(m[1]);
  }
  return counts;
}

/** Calls (attempts) made by the nodes a run executed itself. */
async function callsOf(runDir: string): Promise<{ calls: number; byStage: Record<string, number> }> {
  const manifest = await readManifest(runDir);
  const store = new BlobStore(runDir);
  let calls = 0;
  const byStage: Record<string, number> = {};
  for (const node of manifest.nodes) {
    if (node.reused_from !== undefined) continue;
    for (const hash of node.requests) {
      const { attempts } = RecordAttemptsSchema.parse(await store.getJson(hash));
      calls += attempts;
      byStage[node.stage] = (byStage[node.stage] ?? 0) + attempts;
    }
  }
  return { calls, byStage };
}

/** A fresh `serve-reference` process, once it has printed its URL. */
async function startServer(): Promise<{ server: Deno.ChildProcess; url: string }> {
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      CONFIG,
      LAZY,
      new URL("../main.ts", import.meta.url).href,
      "serve-reference",
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) {
      await server.status;
      throw new Error("serve-reference ended before printing its URL");
    }
    first += value;
  }
  reader.releaseLock();
  return { server, url: first.split("\n")[0].trim() };
}

/** The CPU figures of one timed run: the harness's, and its own provider's with and without its start-up. */
interface TimedRun {
  user: number;
  sys: number;
  /** The provider process's CPU from its spawn to the run's end (start-up included, as the harness's is). */
  serverCpu: number;
  /** The provider's CPU while the run was under way (its start-up left out). */
  serverServingCpu: number;
  calls: number;
}

/**
 * One `hotpot run --live` of `corpusDir`'s corpus against a `serve-reference` started for it alone: each
 * process's CPU is counted from its own start, so both figures include a start-up.
 */
async function timedRun(
  corpusDir: string,
  runDir: string,
  concurrency: number,
  strace: string[],
): Promise<TimedRun> {
  const { server, url } = await startServer();
  try {
    const serverReady = processCpuSeconds(server.pid);
    const run = [
      ...strace,
      Deno.execPath(),
      "run",
      "--allow-all",
      CONFIG,
      LAZY,
      new URL("../main.ts", import.meta.url).href,
      "hotpot",
      "run",
      "--live",
      "--quiet",
      "--concurrency",
      String(concurrency),
      "--corpus",
      join(corpusDir, "corpus.json"),
      "--output",
      runDir,
    ];
    const timed = await new Deno.Command("bash", {
      args: ["-c", '"$@" >/dev/null 2>&1 || exit 1; times', "bench", ...run],
      env: {
        LLM_API_KEY: "bench-local-key",
        LLM_BASE_URL: url,
        DECISION_MODEL_API_KEY: "bench-local-key",
        DECISION_MODEL_BASE_URL: url,
      },
      stdout: "piped",
    }).output();
    if (!timed.success) throw new Error("hotpot run --live failed");
    const serverCpu = processCpuSeconds(server.pid);
    // `times`: the shell's own user/system time, then its children's.
    const lines = new TextDecoder().decode(timed.stdout).trim().split("\n");
    const [user, sys] = lines[lines.length - 1].split(/\s+/).map((t) => {
      const m = /^(\d+)m([\d.]+)s$/.exec(t);
      if (!m) throw new Error(`unexpected times output: ${t}`);
      return Number(m[1]) * 60 + Number(m[2]);
    });
    return {
      user,
      sys,
      serverCpu,
      serverServingCpu: serverCpu - serverReady,
      calls: (await callsOf(runDir)).calls,
    };
  } finally {
    stopServer(server);
    await server.status;
  }
}

/**
 * The harness's CPU per provider call against the provider's, each in its own process and each counted with
 * its start-up (see the module notes). With `marginal`, a 2-question run too: the difference per extra call,
 * both start-ups left out.
 */
export async function benchCpuPerCall(
  options: {
    questions?: number;
    concurrency?: number;
    keep?: boolean;
    syscalls?: boolean;
    dir?: string;
    marginal?: boolean;
  } = {},
): Promise<CpuPerCallResult & { dir: string }> {
  const concurrency = options.concurrency ?? 64;
  const dir = await Deno.makeTempDir({ prefix: "hotpot_cpu_bench_", dir: options.dir });
  try {
    const collectDir = join(dir, "collect");
    const collect = ["hotpot", "collect", "--output", collectDir, "--quiet"];
    if (options.questions !== undefined) collect.push("--questions", String(options.questions));
    if ((options.questions ?? 0) > DEMO_QUESTIONS) {
      // More than the embedded demo data holds: a generated dataset, as `verify-speed`'s 240-question run.
      const records = join(dir, "generated.json");
      await cli([
        "hotpot",
        "generate",
        "--records",
        String(Math.max(2000, 10 * options.questions!)),
        "--output",
        records,
      ]);
      collect.push("--scripted", "--dataset", records);
    }
    await cli(collect);
    const straceOut = join(dir, "strace.txt");
    const strace = options.syscalls
      ? ["strace", "-f", "--seccomp-bpf", "-c", "-o", straceOut, "-e", `trace=${COUNTED_SYSCALLS.join(",")}`]
      : [];
    const loadBefore = loadAverage();
    const big = await timedRun(collectDir, join(dir, "run"), concurrency, strace);
    const { user, sys, serverCpu, calls } = big;
    const load: [number, number] = [loadBefore, loadAverage()];
    const perCall = ((user + sys) * 1000) / calls;
    const serverPerCall = (serverCpu * 1000) / calls;
    let syscalls: Record<string, number> | undefined;
    if (options.syscalls) {
      const counts = straceCounts(await Deno.readTextFile(straceOut));
      syscalls = Object.fromEntries(COUNTED_SYSCALLS.map((name) => [name, (counts[name] ?? 0) / calls]));
    }
    let marginal: CpuPerCallResult["marginal"];
    if (options.marginal) {
      const smallDir = join(dir, "collect-2");
      await cli(["hotpot", "collect", "--output", smallDir, "--quiet", "--questions", "2"]);
      const small = await timedRun(smallDir, join(dir, "run-2"), concurrency, []);
      const extra = calls - small.calls;
      marginal = {
        harness_ms: ((user + sys - small.user - small.sys) * 1000) / extra,
        server_ms: ((big.serverServingCpu - small.serverServingCpu) * 1000) / extra,
        fixed_s: small.user + small.sys - (small.calls * ((user + sys - small.user - small.sys) / extra)),
      };
    }
    const manifest = await readManifest(collectDir);
    const questions = options.questions ?? manifest.nodes.filter((n) => n.stage === "hotpot-collect").length;
    return {
      dir,
      questions,
      concurrency,
      calls,
      user_s: user,
      sys_s: sys,
      cpu_per_call_ms: perCall,
      server_cpu_per_call_ms: serverPerCall,
      server_serving_cpu_per_call_ms: (big.serverServingCpu * 1000) / calls,
      server_startup_s: serverCpu - big.serverServingCpu,
      harness_share: (user + sys) / (user + sys + serverCpu),
      within_target: perCall <= serverPerCall,
      load,
      file_system: fileSystemNote(await Deno.realPath(dir)),
      ...(syscalls ? { syscalls_per_call: syscalls } : {}),
      ...(marginal ? { marginal } : {}),
    };
  } finally {
    if (!options.keep) await Deno.remove(dir, { recursive: true });
  }
}

/** Stops the provider process (it may have exited already). */
function stopServer(server: Deno.ChildProcess): void {
  try {
    server.kill("SIGTERM");
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // already exited
  }
}

/** Options of {@link benchOverhead}. */
export interface OverheadOptions {
  /** Questions in the corpus (half bridge, half comparison); default 8. */
  questions: number;
  /** The reference model's fixed delay per request (ms); default 200. */
  delayMs: number;
  /** Requests in flight per endpoint (`--concurrency`); default 4. */
  concurrency: number;
  /** Keep the temp directory (its path is reported). */
  keep: boolean;
}

/** The figures of one benchmark run. */
export interface OverheadResult {
  dir: string;
  questions: number;
  delay_ms: number;
  concurrency: number;
  /** HTTP requests the run made (attempts of every request record of nodes executed in the run). */
  calls: number;
  /** Calls per stage. */
  calls_by_stage: Record<string, number>;
  /** ceil(calls / concurrency) × delay. */
  ideal_ms: number;
  /** From the run header's `created` to the manifest's `finished`. */
  run_wall_ms: number;
  /** The whole `hotpot run` process. */
  process_wall_ms: number;
  /** run_wall_ms / ideal_ms. */
  ratio: number;
  /** process_wall_ms / ideal_ms, for reference. */
  process_ratio: number;
  target: number;
  within_target: boolean;
}

const RecordAttemptsSchema = z.object({ attempts: z.number().int().positive() }).loose();

/** The project's deno.json, whatever the cwd, and the launcher's lazy loading of each command's modules. */
const CONFIG = `--config=${new URL("../deno.json", import.meta.url).pathname}`;
const LAZY = "--unstable-lazy-dynamic-imports";

async function cli(args: string[]): Promise<void> {
  const main = new URL("../main.ts", import.meta.url);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", CONFIG, LAZY, main.href, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`compaction-bench ${args.join(" ")} exited with ${output.code}:\n${stderr}`);
  }
}

/** Runs the benchmark once. */
export async function benchOverhead(options: Partial<OverheadOptions> = {}): Promise<OverheadResult> {
  const questions = options.questions ?? 8;
  const delayMs = options.delayMs ?? 200;
  const concurrency = options.concurrency ?? 4;
  const dir = await Deno.makeTempDir({ prefix: "hotpot_overhead_bench_" });
  try {
    const collectDir = join(dir, "collect");
    const runDir = join(dir, "run");
    await cli(["hotpot", "collect", "--questions", String(questions), "--output", collectDir, "--quiet"]);
    const started = performance.now();
    await cli([
      "hotpot",
      "run",
      "--corpus",
      join(collectDir, "corpus.json"),
      "--reference",
      "--reference-delay-ms",
      String(delayMs),
      "--concurrency",
      String(concurrency),
      "--output",
      runDir,
      "--quiet",
    ]);
    const processWall = performance.now() - started;
    const manifest = await readManifest(runDir);
    const { calls, byStage } = await callsOf(runDir);
    const idealMs = Math.ceil(calls / concurrency) * delayMs;
    const runWall = Date.parse(manifest.finished) - Date.parse(manifest.created);
    const ratio = runWall / idealMs;
    return {
      dir,
      questions,
      delay_ms: delayMs,
      concurrency,
      calls,
      calls_by_stage: byStage,
      ideal_ms: idealMs,
      run_wall_ms: runWall,
      process_wall_ms: Math.round(processWall),
      ratio,
      process_ratio: processWall / idealMs,
      target: OVERHEAD_TARGET_RATIO,
      within_target: ratio <= OVERHEAD_TARGET_RATIO,
    };
  } finally {
    if (!options.keep) await Deno.remove(dir, { recursive: true });
  }
}

const ArgsSchema = z.object({
  cpu: z.boolean().default(false),
  questions: z.coerce.number().int().min(2).optional(),
  "delay-ms": z.coerce.number().int().min(1).default(200),
  concurrency: z.coerce.number().int().min(1).optional(),
  json: z.boolean().default(false),
  keep: z.boolean().default(false),
  syscalls: z.boolean().default(false),
  dir: z.string().optional(),
  marginal: z.boolean().default(false),
  repeat: z.coerce.number().int().min(1).default(1),
});

/** The lines `--cpu` prints for one timed run. */
function cpuReport(c: CpuPerCallResult & { dir: string }, keep: boolean): string {
  const perCall = (figures: Record<string, number>) =>
    Object.entries(figures).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ");
  return `cpu bench: ${c.questions} questions, ${c.calls} calls at concurrency ${c.concurrency}, load ` +
    `${c.load[0].toFixed(2)} -> ${c.load[1].toFixed(2)}` +
    (c.file_system ? `\n  run directory on ${c.file_system}` : "") + `\n  CPU per call: harness ` +
    `${c.cpu_per_call_ms.toFixed(2)} ms (${c.user_s.toFixed(2)} s user + ${c.sys_s.toFixed(2)} s sys, ` +
    `start-up included), provider ${c.server_cpu_per_call_ms.toFixed(2)} ms (start-up ` +
    `${c.server_startup_s.toFixed(2)} s included; serving alone ${
      c.server_serving_cpu_per_call_ms.toFixed(2)
    } ms): ` +
    `harness ${(100 * c.harness_share).toFixed(0)}% of the two (target: at most the provider's) ` +
    `${c.within_target ? "ok" : "OVER TARGET"}` +
    (c.marginal
      ? `\n  per call beyond a 2-question run: harness ${c.marginal.harness_ms.toFixed(2)} ms, provider ` +
        `${c.marginal.server_ms.toFixed(2)} ms; harness fixed cost ${c.marginal.fixed_s.toFixed(2)} s`
      : "") +
    (c.syscalls_per_call
      ? `\n  syscalls per call (harness, every thread, under strace): ${perCall(c.syscalls_per_call)}`
      : "") +
    (keep ? `\n  kept: ${c.dir}` : "");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      cpu: { type: "boolean" },
      questions: { type: "string" },
      "delay-ms": { type: "string" },
      concurrency: { type: "string" },
      json: { type: "boolean" },
      keep: { type: "boolean" },
      syscalls: { type: "boolean" },
      dir: { type: "string" },
      marginal: { type: "boolean" },
      repeat: { type: "string" },
    },
  });
  const args = ArgsSchema.parse(values);
  if (args.cpu) {
    // `--repeat N`: N timed runs (each with its own provider), judged by the median of their ratios.
    const ratios: number[] = [];
    for (let i = 0; i < args.repeat; i++) {
      const c = await benchCpuPerCall({
        questions: args.questions,
        concurrency: args.concurrency,
        keep: args.keep,
        syscalls: args.syscalls,
        dir: args.dir,
        marginal: args.marginal,
      });
      ratios.push(c.cpu_per_call_ms / c.server_cpu_per_call_ms);
      console.log(args.json ? JSON.stringify(c) : cpuReport(c, args.keep));
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    const mid = (sorted.length - 1) / 2;
    const median = (sorted[Math.floor(mid)] + sorted[Math.ceil(mid)]) / 2;
    if (args.repeat > 1 && !args.json) {
      console.log(
        `${args.repeat} runs: harness/provider CPU per call ${ratios.map((r) => r.toFixed(3)).join(", ")}; ` +
          `median ${median.toFixed(3)} (target: at most 1) ${median <= 1 ? "ok" : "OVER TARGET"}`,
      );
    }
    Deno.exit(median <= 1 ? 0 : 1);
  }
  const r = await benchOverhead({
    questions: args.questions ?? 8,
    delayMs: args["delay-ms"],
    concurrency: args.concurrency ?? 4,
    keep: args.keep,
  });
  if (args.json) console.log(JSON.stringify(r));
  else {
    const stages = Object.entries(r.calls_by_stage).map(([s, n]) => `${s} ${n}`).join(", ");
    console.log(
      `overhead bench: ${r.questions} questions, ${r.calls} calls (${stages}), concurrency ${r.concurrency}, ` +
        `delay ${r.delay_ms} ms\n` +
        `  ideal ceil(${r.calls}/${r.concurrency}) × ${r.delay_ms} ms = ${r.ideal_ms} ms\n` +
        `  run wall ${r.run_wall_ms} ms → ratio ${r.ratio.toFixed(3)} (target ≤ ${r.target}) ` +
        `${r.within_target ? "ok" : "OVER TARGET"}\n` +
        `  process wall ${r.process_wall_ms} ms (start-up and tokenizer build included) → ratio ` +
        `${r.process_ratio.toFixed(3)}` + (args.keep ? `\n  kept: ${r.dir}` : ""),
    );
  }
  if (!r.within_target) Deno.exit(1);
}
