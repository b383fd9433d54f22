/**
 * Engines suite benchmark: times (1) generating and counting a 2,000-turn transcript (target ≤ 5 s) and
 * (2) the default run — 200 turns, 12 needles, every built-in engine, the reference model over loopback,
 * 3 warm repeats, QA included (target ≤ 15 s). Prints the results table and the figures.
 *
 * Run: `deno run --allow-read --allow-net=127.0.0.1 --allow-env --allow-sys bench/engines.ts`
 *
 * @module
 */
import { OpenAIChatClient } from "../src/models/chat_client.ts";
import { SystemOneClient } from "../src/models/decision_client.ts";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { BUILTIN_ENGINES } from "../src/methods/engines/create.ts";
import { loadTokenCounter } from "../src/tokens/load.ts";
import { generateTranscript } from "../src/suites/engines/generate.ts";
import { formatEnginesTable } from "../src/suites/engines/report.ts";
import { runEngines } from "../src/suites/engines/run.ts";

const seconds = (since: number) => (performance.now() - since) / 1000;

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
