/**
 * Credentials and endpoints of the chat model and the decision model (Jev), read from the environment or
 * from a `.env` file, plus {@link redact} to keep secrets out of error texts and logs (stored request and response
 * bodies are never redacted: see src/core/secrets.ts).
 *
 * Variables: `LLM_API_KEY`, `LLM_BASE_URL` (chat model); `DECISION_MODEL_API_KEY`,
 * `DECISION_MODEL_NAME` (default `jev-latest`), `DECISION_MODEL_BASE_URL` (default
 * `https://api.typesafe.ai/v1`). A variable set in the process environment wins over the same variable in
 * the `.env` file (the usual dotenv rule).
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { readInputText } from "../fs_input.ts";
import { MIN_SECRET_CHARS, type NamedSecret, secretsIn } from "../core/secrets.ts";

/** Names of every variable this module reads. */
export const CREDENTIAL_VARIABLES = [
  "LLM_API_KEY",
  "LLM_BASE_URL",
  "DECISION_MODEL_API_KEY",
  "DECISION_MODEL_NAME",
  "DECISION_MODEL_BASE_URL",
] as const;

/** One of {@link CREDENTIAL_VARIABLES}. */
export type CredentialVariable = typeof CREDENTIAL_VARIABLES[number];

/** The values found for the credential variables (absent ones are missing). */
export type CredentialEnvironment = Partial<Record<CredentialVariable, string>>;

/** Default decision model name. */
export const DEFAULT_DECISION_MODEL = "jev-latest";
/** Default System One API base URL. */
export const DEFAULT_DECISION_BASE_URL = "https://api.typesafe.ai/v1";

const KEY_LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/**
 * Parses `.env` text: `KEY=VALUE` lines (an optional `export ` prefix), blank lines and `#` comment lines
 * ignored, values optionally wrapped in matching single or double quotes (kept verbatim inside), an
 * unquoted value ends at ` #` (inline comment). A malformed line is a {@link UsageError} naming the file,
 * the line number and at most the key: never a value or the line's text.
 */
export function parseEnvFile(text: string, fileName: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = KEY_LINE.exec(line);
    if (!match) {
      // Never the line itself: it may be a secret pasted without its KEY=.
      throw new UsageError(
        `--env-file ${fileName}: line ${
          index + 1
        }: expected KEY=VALUE (the line is not shown: it may hold a secret)`,
      );
    }
    let value = match[2].trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
    } else if (quote === '"' || quote === "'") {
      throw new UsageError(
        `--env-file ${fileName}: line ${index + 1}: unterminated quote in the value of ${match[1]}`,
      );
    } else {
      const comment = value.indexOf(" #");
      if (comment >= 0) value = value.slice(0, comment).trim();
    }
    values[match[1]] = value;
  }
  return values;
}

/**
 * Reads the credential variables from the process environment and, when `envFile` is given, from that
 * `.env` file (the process environment wins). Empty values count as missing. A missing or unreadable file
 * is a {@link UsageError} naming it.
 */
export async function loadCredentialEnvironment(envFile?: string): Promise<CredentialEnvironment> {
  let fileValues: Record<string, string> = {};
  if (envFile !== undefined) {
    fileValues = parseEnvFile(await readInputText(envFile, "--env-file"), envFile);
  }
  const environment: CredentialEnvironment = {};
  for (const name of CREDENTIAL_VARIABLES) {
    const value = Deno.env.get(name) || fileValues[name];
    if (value) environment[name] = value;
  }
  holdRunSecrets(
    KEY_VARIABLES.flatMap((name) => environment[name] ? [{ name, value: environment[name] }] : []),
  );
  return environment;
}

/** The credential variables that hold keys. */
export const KEY_VARIABLES = ["LLM_API_KEY", "DECISION_MODEL_API_KEY"] as const;

const heldSecrets = new Map<string, NamedSecret>();

/**
 * Remembers secrets of this run (keys read from the environment or an `--env-file`, values passed to outside
 * processes) so that every outside boundary can refuse them in what comes back ({@link foundRunSecrets}).
 */
export function holdRunSecrets(secrets: readonly NamedSecret[]): void {
  for (const secret of secrets) {
    if (secret.value.length >= MIN_SECRET_CHARS) heldSecrets.set(secret.value, secret);
  }
}

/**
 * The run's secrets an outside process must never hand back: those held ({@link holdRunSecrets}) and the keys
 * in this process's environment even when the run does not use them (a `--reference` run started with
 * `LLM_API_KEY` set: an engine that read it from this process could still try to store it).
 */
export function runSecrets(): NamedSecret[] {
  const found = new Map(heldSecrets);
  for (const name of KEY_VARIABLES) {
    let value: string | undefined;
    try {
      value = Deno.env.get(name);
    } catch {
      value = undefined; // no permission to read the environment: nothing of it to find
    }
    if (value !== undefined && value.length >= MIN_SECRET_CHARS && !found.has(value)) {
      found.set(value, { name, value });
    }
  }
  return [...found.values()];
}

/**
 * The run's secrets ({@link runSecrets}) that occur in `text`, other than the `given` values (those an outside
 * process was handed on purpose, redacted instead). An outside process that returns one took it from this
 * process: the call fails and nothing of what it returned is kept.
 */
export function foundRunSecrets(text: string, given: readonly string[] = []): NamedSecret[] {
  return secretsIn(text, runSecrets().filter((secret) => !given.includes(secret.value)));
}

/** The reason a call fails when what an outside process returned carries a secret of the run (never the value). */
export function stolenSecretReason(source: string, found: readonly NamedSecret[]): string {
  return `${source}: returned the value of ${found.map((secret) => secret.name).join(", ")} (not shown), ` +
    `which it was not given: the call fails and nothing it returned is kept`;
}

/** What the chat client needs for a live run. */
export interface ChatCredentials {
  apiKey: string;
  baseURL: string;
}

/** What the decision client needs for a live run. */
export interface DecisionCredentials {
  apiKey: string;
  model: string;
  baseURL: string;
}

const HttpUrl = z.url({ protocol: /^https?$/ });

function required(environment: CredentialEnvironment, name: CredentialVariable): string {
  const value = environment[name];
  if (!value) throw new UsageError(`${name} is not set (set it in the environment or in the --env-file)`);
  // A key goes into a header: a control character (NUL, a line break) is refused here, never shown.
  if (/\p{Cc}/u.test(value)) {
    throw new UsageError(
      `${name} holds a control character (the value is not shown): fix it where it is set`,
    );
  }
  return value;
}

function url(value: string, name: CredentialVariable): string {
  const parsed = HttpUrl.safeParse(value);
  if (!parsed.success) {
    // The value is not shown: it may come from an env file, whose values are never printed.
    throw new UsageError(`${name}: not an http(s) URL`);
  }
  return value.replace(/\/+$/, "");
}

/** The chat model's credentials for a live run; a missing or invalid variable is a {@link UsageError}. */
export function chatCredentials(environment: CredentialEnvironment): ChatCredentials {
  const apiKey = required(environment, "LLM_API_KEY");
  const baseURL = url(required(environment, "LLM_BASE_URL"), "LLM_BASE_URL");
  return { apiKey, baseURL };
}

/** The decision model's credentials for a live run; a missing or invalid variable is a {@link UsageError}. */
export function decisionCredentials(environment: CredentialEnvironment): DecisionCredentials {
  const apiKey = required(environment, "DECISION_MODEL_API_KEY");
  const model = environment.DECISION_MODEL_NAME || DEFAULT_DECISION_MODEL;
  const baseURL = url(
    environment.DECISION_MODEL_BASE_URL || DEFAULT_DECISION_BASE_URL,
    "DECISION_MODEL_BASE_URL",
  );
  return { apiKey, model, baseURL };
}

/** The text that replaces every secret. */
export const REDACTED = "[REDACTED]";

/**
 * Replaces every occurrence of every secret of {@link MIN_SECRET_CHARS} characters or more in `text` with
 * {@link REDACTED}; shorter secrets are left alone (they would alter ordinary text: `x`, `EMPTY`).
 */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS) result = result.split(secret).join(REDACTED);
  }
  return result;
}

/**
 * Returns a deep copy of a JSON-like value with every secret of {@link MIN_SECRET_CHARS} characters or more
 * redacted from every string (keys included). Values that are not JSON (functions, undefined) are dropped the
 * way `JSON.stringify` drops them. Used only for what a response that carried a key stores (see
 * src/models/response_secrets.ts) and for outside engines' replies.
 */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (value === undefined) return value;
  const active = secrets.filter((secret) => secret.length >= MIN_SECRET_CHARS);
  if (active.length === 0) return structuredCloneJson(value);
  return JSON.parse(JSON.stringify(value, (_key, inner) => {
    if (typeof inner === "string") return redact(inner, active);
    if (inner !== null && typeof inner === "object" && !Array.isArray(inner)) {
      const renamed: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(inner)) renamed[redact(key, active)] = entry;
      return renamed;
    }
    return inner;
  }));
}

function structuredCloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}
