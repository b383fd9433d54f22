/**
 * Stored means sent, and no key anywhere, end to end through the real CLI against the reference model served on
 * loopback: short keys (`x`, `EMPTY`) alter nothing a run stores and are said once to be too short to redact; a
 * provider that echoes the key fails those calls by name and the key is in no file; a key inside an option value
 * is refused (exit 2, the option named, the value never printed, nothing written).
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { startReferenceServer } from "../src/models/reference/server.ts";
import { testCounter } from "./models_support.ts";
import { runCli } from "./helpers/spawn.ts";
import { passedSecrets, refuseSecretsInOptions, shortSecretNames } from "../src/core/secrets.ts";

const counter = await testCounter();

/** Every file under `dir` whose bytes contain `needle` (case-insensitive when asked). */
async function filesContaining(dir: string, needle: string, ignoreCase = false): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(path)) {
      const full = join(path, entry.name);
      if (entry.isDirectory) await walk(full);
      else if (entry.isFile) {
        // Every stored file, the program's own source too (kept compressed, so its code is not text here).
        const text = await Deno.readTextFile(full);
        if (ignoreCase ? text.toLowerCase().includes(needle.toLowerCase()) : text.includes(needle)) {
          found.push(full);
        }
      }
    }
  };
  await walk(dir);
  return found;
}

/** A loopback proxy to `target` that appends the caller's key to every chat answer. */
async function echoingProxy(target: string): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Uint8Array[] = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", async () => {
      const key = String(request.headers.authorization).replace(/^Bearer /, "");
      const upstream = await fetch(`${target}${request.url!.replace(/^\/v1/, "")}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: new TextDecoder().decode(concatChunks(chunks)),
      });
      let text = await upstream.text();
      if (upstream.ok && request.url!.endsWith("/chat/completions")) {
        const json = JSON.parse(text);
        json.choices[0].message.content += ` (key ${key})`;
        text = JSON.stringify(json);
      }
      response.writeHead(upstream.status, { "content-type": "application/json" });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function concatChunks(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

async function envFile(dir: string, name: string, values: Record<string, string>): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, Object.entries(values).map(([k, v]) => `${k}=${v}\n`).join(""));
  return path;
}

const SWEEP = ["sweep", "run", "--live", "-q", "--compressions", "1", "--answers", "1"];

Deno.test("short keys x / EMPTY leave every stored file unredacted, and the run says once they are too short", async () => {
  const dir = await Deno.makeTempDir({ prefix: "live_secrets_" });
  const server = await startReferenceServer({ counter });
  try {
    const env = await envFile(dir, "short.env", {
      LLM_API_KEY: "x",
      LLM_BASE_URL: server.baseUrl,
      DECISION_MODEL_API_KEY: "EMPTY",
      DECISION_MODEL_BASE_URL: server.baseUrl,
    });
    const out = join(dir, "run-x");
    const result = await runCli([...SWEEP, "--env-file", env, "--output", out]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await filesContaining(out, "[redacted]", true), []);
    const notices = result.stderr.split("\n").filter((line) => line.includes("too short to redact"));
    assert.equal(notices.length, 1, result.stderr);
    assert.match(notices[0], /LLM_API_KEY, DECISION_MODEL_API_KEY are shorter than 8 characters/);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a provider echoing the key: those calls fail as response_contains_key, the run ends (exit 1), the key is in no file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "live_secrets_" });
  const server = await startReferenceServer({ counter });
  const proxy = await echoingProxy(server.baseUrl);
  const key = "sk-echoed-0123456789abcdef";
  try {
    const env = await envFile(dir, "long.env", {
      LLM_API_KEY: key,
      LLM_BASE_URL: proxy.baseUrl,
      DECISION_MODEL_API_KEY: "jev-long-key-0123456789",
      DECISION_MODEL_BASE_URL: server.baseUrl,
    });
    const out = join(dir, "run");
    const result = await runCli([...SWEEP, "--env-file", env, "--output", out]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^ {2}first error \(.*\): response_contains_key/m);
    assert.ok(!result.stdout.includes(key) && !result.stderr.includes(key));
    assert.deepEqual(await filesContaining(out, key), []);
    assert.match(await Deno.readTextFile(join(out, "results.json")), /response_contains_key/);
    const verified = await runCli(["verify", out]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  } finally {
    await proxy.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a key inside --engine or --output is refused (exit 2), naming the option, never printing the key", async () => {
  const dir = await Deno.makeTempDir({ prefix: "live_secrets_" });
  const key = "sk-in-option-0123456789";
  try {
    const env = await envFile(dir, "keys.env", {
      LLM_API_KEY: key,
      LLM_BASE_URL: "http://127.0.0.1:9/v1",
      DECISION_MODEL_API_KEY: "jev-long-key-0123456789",
      DECISION_MODEL_BASE_URL: "http://127.0.0.1:9/v1",
    });
    const cases: [string, string[]][] = [
      ["--engine", ["--engine", `exec:python3 adapter.py --api-key ${key}`, "--output", join(dir, "a")]],
      ["--output", ["--engine", "truncate", "--output", join(dir, `run-${key}`)]],
    ];
    for (const [option, words] of cases) {
      const result = await runCli(["engines", "run", "--live", "--no-qa", "--env-file", env, ...words]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(
        result.stderr,
        new RegExp(`^error: ${option}: its value holds the value of LLM_API_KEY`, "m"),
      );
      assert.match(result.stderr, /--engine-env NAME/);
      assert.ok(!result.stderr.includes(key) && !result.stdout.includes(key));
    }
    const left = [];
    for await (const entry of Deno.readDir(dir)) left.push(entry.name);
    assert.deepEqual(left, ["keys.env"], "nothing written");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("option values are checked against the run's secrets: the option is named, the value never shown", () => {
  const key = "sk-option-check-0123456789";
  const secrets = [{ name: "LLM_API_KEY", value: key }, { name: "DECISION_MODEL_API_KEY", value: "EMPTY" }];
  const fail = (message: string) => new Error(message);
  const refused = (options: Record<string, unknown>, argv: string[] = []) => {
    try {
      refuseSecretsInOptions(options, argv, secrets, fail);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  };
  for (
    const [options, option] of [
      [{ engine: [`truncate`, `exec:run --api-key ${key}`] }, "--engine"],
      [{ agent: `exec:agent ${key}` }, "--agent"],
      [{ output: `/runs/${key}/x` }, "--output"],
      [{ price: [{ model: key, input: 1, output: 2 }] }, "--price"],
    ] as const
  ) {
    const message = refused(options);
    assert.ok(
      message?.startsWith(`${option}: its value holds the value of LLM_API_KEY`),
      message ?? "accepted",
    );
    assert.ok(!message!.includes(key));
  }
  // A word of the command line not among the options is named by its option or position.
  assert.match(refused({}, ["--model", key]) ?? "", /^--model: /);
  assert.match(refused({}, [`--tokenizer=${key}`]) ?? "", /^--tokenizer: /);
  // A short key (EMPTY) is never searched for: `--output EMPTY-runs` is fine.
  assert.equal(refused({ output: "EMPTY-runs", model: "x" }), null);
  assert.deepEqual(shortSecretNames(secrets), ["DECISION_MODEL_API_KEY"]);
});

Deno.test("of the variables passed to outside processes, those under secret-looking names are secrets", () => {
  assert.deepEqual(
    passedSecrets("--agent-env", {
      LLM_API_KEY: "k1",
      HF_TOKEN: "k2",
      DB_PASSWORD: "k3",
      LLM_BASE_URL: "http://127.0.0.1:1/v1",
      LEAN_CTX_PLUGIN_DIR: "/opt/lean",
    }).map((s) => s.name),
    ["--agent-env LLM_API_KEY", "--agent-env HF_TOKEN", "--agent-env DB_PASSWORD"],
  );
});
