import assert from "node:assert/strict";
import { assetPath } from "../src/assets.ts";
import { UsageError } from "../src/errors.ts";
import { DEFAULT_SWEEP_TRAJECTORY, loadSweepFixture } from "../src/suites/sweep/fixture.ts";
import { splitUnits } from "../src/suites/sweep/contexts.ts";
import { sha256Hex } from "../src/store/hash.ts";

const fixture = await loadSweepFixture();

Deno.test("the shipped trajectory has a system prompt, a task and six tool calls each paired with its result", () => {
  const roles = fixture.trajectory.map((message) => message.role);
  assert.equal(roles[0], "system");
  assert.equal(roles[1], "user");
  assert.equal(fixture.trajectory.length, 12);
  const calls = fixture.trajectory.flatMap((message) => message.tool_calls ?? []);
  const results = fixture.trajectory.filter((message) => message.role === "tool");
  assert.equal(calls.length, 6);
  assert.deepEqual(results.map((message) => message.tool_call_id), calls.map((call) => call.id));
  assert.notEqual(roles.at(-1), "assistant", "the final assistant report is excluded");
});

Deno.test("the ten units tile every tool result byte for byte", () => {
  assert.deepEqual(fixture.units.map((unit) => unit.id), [
    "u01",
    "u02",
    "u03",
    "u04",
    "u05",
    "u06",
    "u07",
    "u08",
    "u09",
    "u10",
  ]);
  fixture.trajectory.forEach((message, index) => {
    if (message.role !== "tool") return;
    const joined = fixture.units.filter((unit) => unit.message_index === index).map((unit) => unit.text).join(
      "",
    );
    assert.equal(joined, message.content, `tool result ${index}`);
  });
  for (const unit of fixture.units) {
    assert.equal(unit.text, fixture.trajectory[unit.message_index].content!.slice(unit.start, unit.end));
    assert.equal(unit.tool_call_id, fixture.trajectory[unit.message_index].tool_call_id);
  }
});

Deno.test("every fact is traced to a unit that contains its exact text", () => {
  assert.equal(fixture.facts.length, 10);
  assert.equal(new Set(fixture.facts.map((fact) => fact.text)).size, 10);
  for (const fact of fixture.facts) {
    const unit = fixture.units.find((u) => u.id === fact.unit);
    assert.ok(unit, `fact ${fact.name} names unit ${fact.unit}`);
    assert.ok(unit.text.includes(fact.text), `${fact.name}: ${fact.text} in ${fact.unit}`);
  }
  assert.ok(!fixture.trajectory[1].content!.includes("a91c3f7"), "the task does not give the answer away");
});

Deno.test("the follow-up asks for the repair with the exact signature", () => {
  assert.equal(fixture.repairSignature, "async function chargeWithRetry(client, request)");
  assert.ok(fixture.followUp.includes(fixture.repairSignature));
  assert.ok(fixture.followUp.includes("```js"));
  for (const fact of fixture.facts) {
    assert.ok(!fixture.followUp.includes(fact.text), `follow-up leaks ${fact.text}`);
  }
});

Deno.test("the payment case's stages are keyed by the hash of the shipped file, as before cases were data", async () => {
  const bytes = await Deno.readFile(assetPath(DEFAULT_SWEEP_TRAJECTORY));
  assert.equal(fixture.hash, await sha256Hex(bytes));
  assert.equal(fixture.trajectoryHash, fixture.hash);
  assert.equal(fixture.units.length, 10);
});

Deno.test("loader refuses a trajectory whose hash is no case's pin, naming the file and its hash", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sweep_fixture_" });
  try {
    const path = `${dir}/edited.json`;
    const edited = structuredClone(fixture.trajectory);
    edited[3].content = edited[3].content!.replace("timeout_ms=1500", "timeout_ms=1200");
    const text = JSON.stringify(edited, null, 2) + "\n";
    await Deno.writeTextFile(path, text);
    const hash = await sha256Hex(new TextEncoder().encode(text));
    await assert.rejects(() => loadSweepFixture(path), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, new RegExp(`${path}.*${hash}.*is the pin of no sweep case`));
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loader refuses a file that is no case's trajectory, or that it cannot read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sweep_fixture_" });
  try {
    const path = `${dir}/bad.json`;
    await Deno.writeTextFile(
      path,
      JSON.stringify([{ role: "system", content: "x" }, { role: "robot", content: "y" }]),
    );
    await assert.rejects(() => loadSweepFixture(path), (error: unknown) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /bad\.json: sha256 [0-9a-f]{64} is the pin of no sweep case/);
      return true;
    });
    await Deno.writeTextFile(path, "{not json");
    await assert.rejects(() => loadSweepFixture(path), /bad\.json: sha256 [0-9a-f]{64} is the pin of no/);
    await assert.rejects(() => loadSweepFixture(`${dir}/missing.json`), /missing\.json: not found/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("unit splitting rejects boundaries that leave a gap or stop short", () => {
  const messages = [
    { role: "user" as const, content: "task" },
    { role: "tool" as const, content: "abcdef", tool_call_id: "c1" },
  ];
  assert.throws(
    () =>
      splitUnits(messages, [{ id: "u01", message_index: 1, start: 0, end: 2 }, {
        id: "u02",
        message_index: 1,
        start: 3,
        end: 6,
      }]),
    /unit u02: starts at 3, expected 2/,
  );
  assert.throws(
    () => splitUnits(messages, [{ id: "u01", message_index: 1, start: 0, end: 5 }]),
    /covers? 5 of 6/,
  );
  assert.throws(
    () => splitUnits(messages, [{ id: "u01", message_index: 0, start: 0, end: 4 }]),
    /not a tool result/,
  );
});

Deno.test("tool output is 4,000-7,000 tokens and the full history exceeds the 3,800 ceiling", async () => {
  const { loadTokenCounter } = await import("../src/tokens/load.ts");
  const counter = await loadTokenCounter();
  const toolTokens = fixture.trajectory
    .filter((message) => message.role === "tool")
    .reduce((sum, message) => sum + counter.countText(message.content ?? ""), 0);
  assert.ok(toolTokens >= 4000 && toolTokens <= 7000, `tool output ${toolTokens} tokens`);
  assert.ok(counter.countMessages(fixture.trajectory) > 3800);
});
