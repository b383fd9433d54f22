import assert from "node:assert/strict";
import { UsageError } from "../src/errors.ts";
import {
  chatCredentials,
  CREDENTIAL_VARIABLES,
  decisionCredentials,
  loadCredentialEnvironment,
  parseEnvFile,
  redact,
  redactValue,
} from "../src/models/credentials.ts";

Deno.test("env file parser reads KEY=VALUE lines, comments, quotes and export prefixes", () => {
  const values = parseEnvFile(
    [
      "# a comment",
      "",
      "LLM_API_KEY=sk-test-SECRET",
      'LLM_BASE_URL="http://127.0.0.1:9/v1"',
      "export DECISION_MODEL_NAME='jev-2 # not a comment'",
      "DECISION_MODEL_API_KEY=dk-1 # trailing comment",
    ].join("\n"),
    ".env",
  );
  assert.deepEqual(values, {
    LLM_API_KEY: "sk-test-SECRET",
    LLM_BASE_URL: "http://127.0.0.1:9/v1",
    DECISION_MODEL_NAME: "jev-2 # not a comment",
    DECISION_MODEL_API_KEY: "dk-1",
  });
});

Deno.test("env file parser names the file and line of a malformed line, never its text or a value", () => {
  const secret = "sk-live-0123456789abcdef";
  assert.throws(() => parseEnvFile(`A=1\n${secret}\n`, "my.env"), (error) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /my\.env: line 2: expected KEY=VALUE/);
    assert.ok(!error.message.includes(secret), error.message);
    return true;
  });
  assert.throws(() => parseEnvFile(`KEY="${secret}`, "q.env"), (error) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /q\.env: line 1: unterminated quote in the value of KEY/);
    assert.ok(!error.message.includes(secret), error.message);
    return true;
  });
});

Deno.test("an invalid URL read from an env file is named by its key, never printed", () => {
  const secretUrl = "ftp://user:hunter2@example.invalid";
  assert.throws(
    () => chatCredentials({ LLM_API_KEY: "k", LLM_BASE_URL: secretUrl }),
    (error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /LLM_BASE_URL: not an http\(s\) URL/);
      assert.ok(!error.message.includes("hunter2"), error.message);
      return true;
    },
  );
});

Deno.test("credentials come from the env file and the process environment wins", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/.env`;
    await Deno.writeTextFile(file, "LLM_API_KEY=from-file\nLLM_BASE_URL=http://file.example/v1/\n");
    const saved = CREDENTIAL_VARIABLES.map((name) => [name, Deno.env.get(name)] as const);
    for (const name of CREDENTIAL_VARIABLES) Deno.env.delete(name);
    Deno.env.set("LLM_API_KEY", "from-env");
    try {
      const environment = await loadCredentialEnvironment(file);
      assert.deepEqual(chatCredentials(environment), {
        apiKey: "from-env",
        baseURL: "http://file.example/v1",
      });
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) Deno.env.delete(name);
        else Deno.env.set(name, value);
      }
    }
    await assert.rejects(loadCredentialEnvironment(`${dir}/missing.env`), (error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, /missing\.env/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing key for a live run is a usage error naming the variable", () => {
  assert.throws(() => chatCredentials({ LLM_BASE_URL: "http://x/v1" }), (error) => {
    assert.ok(error instanceof UsageError);
    assert.match(error.message, /LLM_API_KEY/);
    return true;
  });
  assert.throws(() => chatCredentials({ LLM_API_KEY: "k" }), /LLM_BASE_URL/);
  assert.throws(
    () => chatCredentials({ LLM_API_KEY: "k", LLM_BASE_URL: "ftp://x" }),
    /LLM_BASE_URL: not an http/,
  );
  assert.throws(() => decisionCredentials({}), /DECISION_MODEL_API_KEY/);
});

Deno.test("decision credentials default the model name and base URL", () => {
  assert.deepEqual(decisionCredentials({ DECISION_MODEL_API_KEY: "dk" }), {
    apiKey: "dk",
    model: "jev-latest",
    baseURL: "https://api.typesafe.ai/v1",
  });
});

Deno.test("redact removes every occurrence of every secret of 8+ characters, also deep inside values and keys", () => {
  assert.equal(redact("a sk-12345 b sk-12345", ["sk-12345", ""]), "a [REDACTED] b [REDACTED]");
  const value = { "sk-12345": ["x sk-12345 y", 3, null, { nested: "sk-12345" }] };
  assert.deepEqual(redactValue(value, ["sk-12345"]), {
    "[REDACTED]": ["x [REDACTED] y", 3, null, { nested: "[REDACTED]" }],
  });
});

Deno.test("a secret shorter than 8 characters redacts nothing (x, EMPTY would rewrite ordinary text)", () => {
  assert.equal(redact("max_tokens exhausted EMPTY", ["x", "EMPTY", "sk-1234"]), "max_tokens exhausted EMPTY");
  const value = { max_tokens: ["text", "EMPTY"] };
  assert.deepEqual(redactValue(value, ["x", "EMPTY"]), value);
});
