/**
 * Credentials and endpoints of the chat and decision models, read from the environment (which wins) or a
 * `.env` file; the run's secrets held so that outside boundaries can refuse them; {@link redact} for error
 * texts and logs (stored request and response bodies are never redacted).
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

type CredentialVariable = typeof CREDENTIAL_VARIABLES[number];

/** The values found for the credential variables (absent ones are missing). */
export type CredentialEnvironment = Partial<Record<CredentialVariable, string>>;

export const DEFAULT_DECISION_MODEL = "jev-latest";
export const DEFAULT_DECISION_BASE_URL = "https://api.typesafe.ai/v1";

const KEY_LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

/**
 * Parses `.env` text: `[export ]KEY=VALUE` lines, `#` comments, values optionally quoted, an unquoted value
 * ending at ` #`. A malformed line is a {@link UsageError} naming the line and at most the key, never a value.
 */
export function parseEnvFile(text: string, fileName: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = KEY_LINE.exec(line);
    const where = `--env-file ${fileName}: line ${index + 1}`;
    if (!match) {
      throw new UsageError(`${where}: expected KEY=VALUE (the line is not shown: it may hold a secret)`);
    }
    let value = match[2].trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
    } else if (quote === '"' || quote === "'") {
      throw new UsageError(`${where}: unterminated quote in the value of ${match[1]}`);
    } else {
      const comment = value.indexOf(" #");
      if (comment >= 0) value = value.slice(0, comment).trim();
    }
    values[match[1]] = value;
  }
  return values;
}

/** Reads the credential variables from the environment and `envFile` (empty values count as missing). */
export async function loadCredentialEnvironment(envFile?: string): Promise<CredentialEnvironment> {
  const fileValues: Record<string, string> = envFile === undefined
    ? {}
    : parseEnvFile(await readInputText(envFile, "--env-file"), envFile);
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

/** Remembers secrets of this run so that every outside boundary can refuse them ({@link foundRunSecrets}). */
export function holdRunSecrets(secrets: readonly NamedSecret[]): void {
  for (const secret of secrets) {
    if (secret.value.length >= MIN_SECRET_CHARS) heldSecrets.set(secret.value, secret);
  }
}

/** The run's secrets an outside process must never hand back: those held and the keys in the environment. */
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

/** The run's secrets that occur in `text`, other than the `given` values (handed over on purpose). */
export function foundRunSecrets(text: string, given: readonly string[] = []): NamedSecret[] {
  return secretsIn(text, runSecrets().filter((secret) => !given.includes(secret.value)));
}

/** The reason a call fails when what an outside process returned carries a secret of the run (never the value). */
export function stolenSecretReason(source: string, found: readonly NamedSecret[]): string {
  return `${source}: returned the value of ${found.map((secret) => secret.name).join(", ")} (not shown), ` +
    `which it was not given: the call fails and nothing it returned is kept`;
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
  // The value is not shown: it may come from an env file, whose values are never printed.
  if (!HttpUrl.safeParse(value).success) throw new UsageError(`${name}: not an http(s) URL`);
  return value.replace(/\/+$/, "");
}

/** The chat model's credentials for a live run; a missing or invalid variable is a {@link UsageError}. */
export function chatCredentials(environment: CredentialEnvironment): { apiKey: string; baseURL: string } {
  const apiKey = required(environment, "LLM_API_KEY");
  const baseURL = url(required(environment, "LLM_BASE_URL"), "LLM_BASE_URL");
  return { apiKey, baseURL };
}

/** The decision model's credentials for a live run; a missing or invalid variable is a {@link UsageError}. */
export function decisionCredentials(environment: CredentialEnvironment) {
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

/** Replaces every secret of {@link MIN_SECRET_CHARS} characters or more in `text` (shorter ones alter text). */
export function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_CHARS) result = result.split(secret).join(REDACTED);
  }
  return result;
}

/** A JSON copy of `value` with every secret redacted from every string, keys included (see {@link redact}). */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (value === undefined) return value;
  const active = secrets.filter((secret) => secret.length >= MIN_SECRET_CHARS);
  if (active.length === 0) return JSON.parse(JSON.stringify(value));
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
