/**
 * Progress on stderr: when stderr is not a terminal, one plain line per stage when its planned work is done,
 * counting executions that the executor served from its memo, with the suite prefix dropped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { Executor } from "../src/pipeline/executor.ts";
import { defineStage } from "../src/pipeline/stage.ts";
import { Progress } from "../src/pipeline/progress.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { testHeader } from "./helpers/header.ts";

Deno.test("progress prints one line per finished stage, memo hits included, without the suite prefix", async () => {
  const dir = await Deno.makeTempDir();
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    const run = await RunDir.create(join(dir, "run"), testHeader());
    // The suite gives its stages' display names (the life cycle passes the suite's own).
    const progress = new Progress("hotpot", { live: false, names: (stage) => stage.replace(/^hotpot-/, "") });
    const executor = new Executor(run, { progress });
    progress.plan("hotpot-context", 3);
    const stage = defineStage({
      name: "hotpot-context",
      version: 1,
      doc: "a test stage",
      params: z.object({ n: z.number() }),
      inputs: [],
      outputs: { x: { schema: z.number(), doc: "" } },
      provider: false,
      run: () => Promise.resolve({ outputs: { x: 1 } }),
    });
    await Promise.all(
      [0, 1, 2].map(() => executor.runStage(stage, { label: "c", params: { n: 1 }, inputs: {} }, undefined)),
    );
    assert.equal(executor.counts.executed, 1);
    assert.equal(executor.counts.memo, 2);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /^hotpot: context 3\/3 done · \d+s/);
    await run.finish();
  } finally {
    console.error = original;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("progress shows per stage done/planned, elapsed, rate, ETA, failures and retries", () => {
  let now = 0;
  const progress = new Progress("hotpot", {
    quiet: true,
    now: () => now,
    names: (s) => s.replace(/^hotpot-/, ""),
  });
  progress.plan("hotpot-answer", 10);
  assert.deepEqual(progress.figures("hotpot-answer"), {
    stage: "hotpot-answer",
    done: 0,
    planned: 10,
    elapsedSeconds: null,
    ratePerSecond: null,
    etaSeconds: null,
    failed: 0,
    retries: 0,
    notSent: 0,
  });
  now = 5000; // the stage waited 5 s for its inputs: not counted
  progress.tick("hotpot-answer");
  now = 7000;
  progress.tick("hotpot-answer", { retries: 2 });
  now = 9000;
  progress.tick("hotpot-answer", { failed: true });
  now = 10_000;
  const f = progress.figures("hotpot-answer")!;
  assert.equal(f.done, 3);
  assert.equal(f.elapsedSeconds, 5);
  assert.equal(f.ratePerSecond, 0.5); // 2 more units in 4 s
  assert.equal(f.etaSeconds, 14); // 7 left at 0.5/s
  assert.equal(f.failed, 1);
  assert.equal(f.retries, 2);
  assert.deepEqual(progress.statusLines(), [
    "hotpot: answer 3/10 · 5s · 30.0/min · ETA 14s · 1 failed · 2 retries",
  ]);
});

Deno.test("the plain form prints a status line of every unfinished stage periodically and stops when done", async () => {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    const progress = new Progress("sweep", {
      live: false,
      intervalMs: 20,
      names: (s) => s.replace(/^sweep-/, ""),
    });
    progress.plan("sweep-answer", 2);
    progress.tick("sweep-answer");
    await new Promise((r) => setTimeout(r, 120));
    assert.ok(lines.some((l) => /^sweep: answer 1\/2 · \d+s · ETA \?$/.test(l)), lines.join("\n"));
    progress.tick("sweep-answer");
    assert.match(lines.at(-1)!, /^sweep: answer 2\/2 done/);
    const count = lines.length;
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(lines.length, count, "no status lines after every stage is done");
  } finally {
    console.error = original;
  }
});

Deno.test("a check-only unit not sent is counted apart, never as failed", () => {
  const progress = new Progress("hotpot", { quiet: true, names: (s) => s.replace(/^hotpot-/, "") });
  progress.plan("hotpot-answer", 2);
  progress.tick("hotpot-answer", { failed: true, notSent: true });
  progress.tick("hotpot-answer", { failed: true, notSent: true });
  const f = progress.figures("hotpot-answer")!;
  assert.equal(f.failed, 0);
  assert.equal(f.notSent, 2);
});

Deno.test("the live block fits 80 columns: elapsed, one overall estimate, a line per open stage, a finish line", () => {
  let now = 0;
  const out: string[] = [];
  const progress = new Progress("hotpot", {
    live: true,
    now: () => now,
    columns: 80,
    write: (text) => out.push(text),
    names: (s) => s.replace(/^hotpot-/, ""),
  });
  const stages = ["question", "rank", "summary", "context", "answer", "score", "rows", "aggregate", "report"];
  for (const s of stages) progress.plan(`hotpot-${s}`, s === "aggregate" || s === "report" ? 1 : 480);
  for (let i = 0; i < 480; i++) {
    now = 1000 + 10 * i;
    progress.tick("hotpot-question");
  }
  now = 10_000;
  progress.tick("hotpot-rank");
  now = 20_000;
  progress.tick("hotpot-rank", { retries: 12_345 });
  progress.tick("hotpot-answer", { failed: true });
  now = 65_000;
  const lines = progress.liveLines(80);
  // rank: 1 more unit in 10 s, 478 left: 4,780 s, the longest ETA of the open stages.
  assert.equal(lines[0], "hotpot: 1m05s elapsed · about 1h19m left · 1/9 stages done");
  assert.match(lines[1], /^ {2}rank {4}2\/480 · 6\.0\/min · ETA 1h19m · 12345 retries$/);
  assert.equal(lines.length, 1 + 6 + 1, "six open stages, the rest counted");
  assert.equal(lines.at(-1), "  … 2 more stage(s) waiting");
  for (const line of lines) assert.ok(line.length <= 79, `${line.length}: ${line}`);
  // A narrow terminal cuts a line with a mark instead of wrapping it (a wrapped line breaks the redraw).
  for (const line of progress.liveLines(30)) assert.ok(line.length <= 29, line);
  // Each redraw goes back to the block's first line and clears below it.
  out.length = 0;
  progress.note("a note");
  assert.equal(out[0], `\r\x1b[${lines.length - 1}A\x1b[Ja note\n`);
  assert.equal(out[1].split("\n").length, lines.length);
  out.length = 0;
  progress.end();
  assert.equal(
    out.join(""),
    `\r\x1b[${
      lines.length - 1
    }A\x1b[Jhotpot: stopped after 1m05s · 1/9 stages done · 1 failed · 12345 retries\n`,
  );
});

Deno.test("the live block's finish line says the total time when every stage is done", () => {
  let now = 0;
  const out: string[] = [];
  const progress = new Progress("sweep", {
    live: true,
    now: () => now,
    columns: 80,
    write: (t) => out.push(t),
  });
  progress.plan("sweep-answer", 2);
  assert.deepEqual(progress.liveLines(80), [
    "sweep: 0s elapsed · estimating time left · 0/1 stages done",
    "  sweep-answer 0/2 · ETA ?",
  ]);
  now = 3000;
  progress.tick("sweep-answer");
  now = 83_000;
  progress.tick("sweep-answer");
  assert.deepEqual(progress.liveLines(80), ["sweep: 1m23s elapsed · 1/1 stages done"]);
  progress.end();
  assert.equal(out.at(-1), "\r\x1b[Jsweep: finished in 1m23s · 1 stage\n");
});
