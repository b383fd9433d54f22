/**
 * The secrets of a run: those of {@link MIN_SECRET_CHARS} characters or more are kept out of error texts and
 * logs and refused in options; stored bodies are never redacted (keys travel only in headers).
 * @module
 */

/** Secrets shorter than this are never redacted, never searched for and never promised secret. */
export const MIN_SECRET_CHARS = 8;

export interface NamedSecret {
  name: string;
  value: string;
}

/** The secrets long enough to be kept out of text ({@link MIN_SECRET_CHARS} characters or more). */
export function longSecrets(secrets: readonly NamedSecret[]): NamedSecret[] {
  return secrets.filter((secret) => secret.value.length >= MIN_SECRET_CHARS);
}

/** The names of the secrets too short to redact (empty values are not secrets at all). */
export function shortSecretNames(secrets: readonly NamedSecret[]): string[] {
  const short = secrets.filter((s) => s.value.length > 0 && s.value.length < MIN_SECRET_CHARS);
  return [...new Set(short.map((s) => s.name))];
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

const PASS_SECRETS_HINT = "pass a secret to an outside engine with --engine-env NAME, to an agent with " +
  "--agent-env NAME (the variable's value is handed over, never recorded)";

/** Refuses option values and command words holding a long secret, naming the option and source, not the value. */
export function refuseSecretsInOptions(
  options: Readonly<Record<string, unknown>>,
  argv: readonly string[],
  secrets: readonly NamedSecret[],
  fail: (message: string) => Error,
): void {
  const active = longSecrets(secrets);
  if (active.length === 0) return;
  const refuse = (option: string, found: NamedSecret[]) => {
    if (found.length > 0) {
      throw fail(
        `${option}: its value holds the value of ${found[0].name} (not shown); ${PASS_SECRETS_HINT}`,
      );
    }
  };
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    refuse(`--${name}`, secretsIn(typeof value === "string" ? value : JSON.stringify(value) ?? "", active));
  }
  for (let index = 0; index < argv.length; index++) {
    const option = /^--[A-Za-z0-9-]+/.exec(argv[index])?.[0] ??
      (index > 0 && argv[index - 1].startsWith("--") ? argv[index - 1] : `argument ${index + 1}`);
    refuse(option, secretsIn(argv[index], active));
  }
}

/** Variable names that hold secrets (an `--engine-env`/`--agent-env` value under such a name is one). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS\b|AUTH|CREDENTIAL/i;

/** The secrets among variables passed to outside processes: those whose name says so, named `OPTION NAME`. */
export function passedSecrets(option: string, env: Readonly<Record<string, string>>): NamedSecret[] {
  const named = Object.entries(env).filter(([name]) => SECRET_NAME.test(name));
  return named.map(([name, value]) => ({ name: `${option} ${name}`, value }));
}
