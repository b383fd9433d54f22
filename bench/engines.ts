/**
 * Engines suite benchmark: times (1) generating and counting a 2,000-turn transcript (target ≤ 5 s),
 * (2) the default run — 200 turns, 12 needles, every built-in engine, the reference model over loopback,
 * 3 warm repeats, QA included (target ≤ 15 s) — and (3) the harness overhead per call, round trip − the
 * engine's own compress time, for an in-process engine (truncate), a persistent worker and a one-shot `exec:`
 * engine (both Python, keeping the last messages, timing their own compress call; the one-shot's overhead
 * includes its process start and imports). Prints the results table and the figures.
 *
 * Run: `deno run -A bench/engines.ts` (`--overhead` runs (3) alone)
 *
 * @module
 */
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import { SystemOneClient } from "../src/models/decision_client.ts";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { BUILTIN_ENGINES } from "../src/methods/engines/engine_names.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { formatEnginesTable } from "../src/suites/engines/report.ts";
import { runEngines } from "../src/suites/engines/run.ts";
import { median, percentile } from "../src/suites/engines/metrics.ts";
import { join } from "node:path";

const seconds = (since: number) => (performance.now() - since) / 1000;

if (Deno.args.includes("--overhead")) {
  await overhead();
  Deno.exit(0);
}

let started = performance.now();
const counter = await loadTokenCounter();
const loadSeconds = seconds(started);

started = performance.now();
const big = generateTranscript({ turns: 2000 });
const bigTokens = counter.countMessages(big.messages);
const bigSeconds = seconds(started);

started = performance.now();
const server = await startReferenceServer({ counter });
try {
  const chat = new OpenAIChatClient({ apiKey: "reference", baseURL: server.baseUrl });
  const decision = new SystemOneClient({ apiKey: "reference", baseURL: server.baseUrl });
  const transcript = generateTranscript();
  const phases: string[] = [];
  const results = await runEngines({
    messages: transcript.messages,
    needles: transcript.needles,
    engines: [...BUILTIN_ENGINES],
    repeats: 3,
    counter,
    chat,
    decision,
    onProgress: (p) => phases.push(`${p.engine}:${p.phase}@${seconds(started).toFixed(2)}`),
  });
  const runSeconds = seconds(started);
  console.log(formatEnginesTable(results));
  console.log();
  if (Deno.args.includes("--phases")) console.log(phases.join("\n"));
  console.log(`tokenizer build: ${loadSeconds.toFixed(2)} s`);
  console.log(
    `generate+count 2,000 turns: ${
      bigSeconds.toFixed(2)
    } s (${big.messages.length} messages, ${bigTokens} tokens; ` +
      `target ≤ 5 s: ${bigSeconds <= 5 ? "met" : "MISSED"})`,
  );
  console.log(
    `default run (200 turns, ${BUILTIN_ENGINES.length} engines, 3 repeats, QA): ${runSeconds.toFixed(2)} s ` +
      `(target ≤ 15 s: ${runSeconds <= 15 ? "met" : "MISSED"})`,
  );
} finally {
  await server.close();
}

await overhead();

/** (3): round trip − compress per warm call, per kind of engine, on the default 200-turn transcript. */
async function overhead(): Promise<void> {
  const counter = await loadTokenCounter();
  const dir = await Deno.makeTempDir({ prefix: "bench_engines_" });
  const adapters = new URL("../adapters", import.meta.url).pathname;
  const keep = `def keep(messages):
    head = [m for m in messages[:1] if m.get("role") == "system"]
    tail = messages[len(head):][-24:]
    while tail and tail[0].get("role") == "tool":
        tail = tail[1:]
    return head + tail
`;
  const worker = join(dir, "worker.py");
  await Deno.writeTextFile(
    worker,
    // No __pycache__ left in adapters/ (the bytecode of its helpers is not written).
    `import sys\nsys.dont_write_bytecode = True\nsys.path.insert(0, ${JSON.stringify(adapters)})\n` +
      `from outside_engine_io import reply, serve, timed\n${keep}\n` +
      `serve(lambda req: reply(timed(lambda: keep(req["messages"]))), "bench-worker", "1")\n`,
  );
  const oneShot = join(dir, "one_shot.py");
  await Deno.writeTextFile(
    oneShot,
    `import json, sys, time\n${keep}\nreq = json.load(sys.stdin)\nt = time.perf_counter()\n` +
      `out = keep(req["messages"])\nms = (time.perf_counter() - t) * 1000\n` +
      `json.dump({"messages": out, "compress_ms": ms}, sys.stdout)\n`,
  );
  try {
    const { messages } = generateTranscript();
    const repeats = 20;
    const rows = await runEngines({
      messages,
      engines: [
        { name: "in-process (truncate)", spec: "truncate" },
        { name: "persistent worker", spec: `exec:python3 ${worker}` },
        { name: "one-shot exec:", spec: `exec:python3 ${oneShot}` },
      ],
      repeats,
      counter,
      timeoutMs: 60_000,
    });
    console.log(
      `harness overhead per call: round trip − the engine's own compress time, ${repeats} warm calls, ` +
        `200-turn transcript (${messages.length} messages, ${counter.countMessages(messages)} tokens)`,
    );
    for (const row of rows) {
      const own = row.compress_ms?.warm ?? [];
      const gaps = row.latency_ms.warm.map((ms, i) => ms - (own[i] ?? NaN)).filter(Number.isFinite);
      const fmt = (v: number | null) => v === null ? "-" : v.toFixed(2);
      console.log(
        `  ${row.engine.padEnd(22)} ${row.status} timing ${row.timing}: overhead median ${
          fmt(median(gaps))
        } ms, ` +
          `p95 ${fmt(percentile(gaps, 95))} ms; compress median ${fmt(median(own))} ms; round trip median ` +
          `${fmt(row.latency_ms.warm_median)} ms; start-up ${fmt(row.startup_ms ?? null)} ms`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
