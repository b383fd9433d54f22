/**
 * The secrets of a run (provider keys, values passed with `--engine-env`) and the rule that says which of them
 * the program can keep out of what it writes: a secret of {@link MIN_SECRET_CHARS} characters or more. Shorter
 * values (`x`, `EMPTY`, `ollama`: what local servers take) would occur by chance in ordinary text, so they are
 * never redacted and never promised secret; the run says so once.
 *
 * What is stored is what was sent and received: request and response bodies are never redacted (keys travel
 * only in headers, which are not stored). Only error texts and logs are redacted; an option value holding a
 * secret is refused before the run starts; a response carrying one fails its call (see
 * src/models/response_secrets.ts).
 *
 * @module
 */

/** Secrets shorter than this are never redacted, never searched for and never promised secret. */
export const MIN_SECRET_CHARS = 8;

/** A secret and where it came from (a variable name such as `LLM_API_KEY`; never the value). */
export interface NamedSecret {
  /** Where the value came from, e.g. `LLM_API_KEY` or `--engine-env HERMES_KEY`. */
  name: string;
  value: string;
}

/** The secrets long enough to be kept out of text ({@link MIN_SECRET_CHARS} characters or more). */
export function longSecrets(secrets: readonly NamedSecret[]): NamedSecret[] {
  return secrets.filter((secret) => secret.value.length >= MIN_SECRET_CHARS);
}

/** The names of the secrets too short to redact (empty values are not secrets at all). */
export function shortSecretNames(secrets: readonly NamedSecret[]): string[] {
  const names = secrets.filter((s) => s.value.length > 0 && s.value.length < MIN_SECRET_CHARS).map((s) =>
    s.name
  );
  return [...new Set(names)];
}

/** The long secrets that occur in `text` (each name once, in the order given). */
export function secretsIn(text: string, secrets: readonly NamedSecret[]): NamedSecret[] {
  const found: NamedSecret[] = [];
  for (const secret of longSecrets(secrets)) {
    if (text.includes(secret.value) && !found.some((f) => f.name === secret.name)) found.push(secret);
  }
  return found;
}

/** The one line a run prints when some of its secrets are too short to redact. */
export function shortSecretNotice(names: readonly string[]): string {
  return `note: ${names.join(", ")} ${names.length === 1 ? "is" : "are"} shorter than ${MIN_SECRET_CHARS} ` +
    `characters: too short to redact from error texts and logs (stored request and response bodies are never ` +
    `redacted; keys are sent only in headers, which are not stored)`;
}

/** The hint of a refused option value: where a secret may be passed instead. */
const PASS_SECRETS_HINT = "pass a secret to an outside engine with --engine-env NAME, to an agent with " +
  "--agent-env NAME (the variable's value is handed over, never recorded)";

/**
 * Refuses option values that hold a secret ({@link MIN_SECRET_CHARS} characters or more): every option value
 * (strings, lists, nested values) and every command word. The message names the option (or the word's
 * position) and where the secret came from, never the value; a run so started would store the value in its
 * header, reports and stdout, so nothing is written.
 */
export function refuseSecretsInOptions(
  options: Readonly<Record<string, unknown>>,
  argv: readonly string[],
  secrets: readonly NamedSecret[],
  fail: (message: string) => Error,
): void {
  const active = longSecrets(secrets);
  if (active.length === 0) return;
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const found = secretsIn(typeof value === "string" ? value : JSON.stringify(value) ?? "", active);
    if (found.length > 0) {
      throw fail(
        `--${name}: its value holds the value of ${found[0].name} (not shown); ${PASS_SECRETS_HINT}`,
      );
    }
  }
  for (let index = 0; index < argv.length; index++) {
    const found = secretsIn(argv[index], active);
    if (found.length > 0) {
      const option = /^--[A-Za-z0-9-]+/.exec(argv[index])?.[0] ??
        (index > 0 && argv[index - 1].startsWith("--") ? argv[index - 1] : `argument ${index + 1}`);
      throw fail(
        `${option}: its value holds the value of ${found[0].name} (not shown); ${PASS_SECRETS_HINT}`,
      );
    }
  }
}

/** Variable names that hold secrets (an `--engine-env`/`--agent-env` value under such a name is one). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS\b|AUTH|CREDENTIAL/i;

/**
 * The secrets among variables passed to outside processes (`--engine-env`, `--agent-env`): those whose name
 * says so (`…KEY`, `…TOKEN`, `…SECRET`, `…PASSWORD`, `…AUTH…`, `…CREDENTIAL…`), named `OPTION NAME`. Other values
 * (base URLs, folders) are not secrets: an option may name the same URL or folder.
 */
export function passedSecrets(option: string, env: Readonly<Record<string, string>>): NamedSecret[] {
  return Object.entries(env).filter(([name]) => SECRET_NAME.test(name)).map(([name, value]) => ({
    name: `${option} ${name}`,
    value,
  }));
}
