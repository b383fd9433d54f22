/**
 * Refusing options that contradict each other or would be silently ignored, naming them and why.
 * @module
 */
import { UsageError } from "../errors.ts";

/** The names of the options that were given (a value other than `undefined` and `false`). */
export function givenOptions(options: object): string[] {
  return Object.entries(options)
    .filter(([key, value]) => key !== "help" && value !== undefined && value !== false)
    .map(([key]) => key);
}

/** Refuses every option of `names` that was given: `"<command>: --a, --b <why>"`. */
export function refuseGiven(command: string, options: object, names: readonly string[], why: string): void {
  const values = options as Record<string, unknown>;
  const given = names.filter((name) => values[name] !== undefined && values[name] !== false);
  if (given.length === 0) return;
  const list = given.map((name) => `--${name}`).join(", ");
  throw new UsageError(`${command}: ${list} ${given.length === 1 ? "is" : "are"} ${why}`);
}

/** One option occurrence as `parseArgs` reports it with `tokens: true`. */
interface OptionToken {
  kind: string;
  name?: string;
  value?: string;
}

/** Refuses a single-valued option given twice with different values (identical repeats are allowed). */
export function refuseRepeatedOptions(
  command: string,
  tokens: readonly OptionToken[],
  spec: Record<string, { multiple?: boolean }>,
): void {
  const seen = new Map<string, string | undefined>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined || spec[token.name]?.multiple) continue;
    if (seen.has(token.name) && seen.get(token.name) !== token.value) {
      throw new UsageError(`${command}: --${token.name} is given twice with different values; give it once`);
    }
    seen.set(token.name, token.value);
  }
}

/** Removes every occurrence of the named options (and their values) from an argv. */
export function withoutOptions(
  argv: readonly string[],
  names: readonly string[],
  spec: Record<string, { type: string; short?: string }>,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    const name = names.find((n) =>
      word === `--${n}` || word.startsWith(`--${n}=`) || (spec[n]?.short && word === `-${spec[n].short}`)
    );
    if (name === undefined) {
      out.push(word);
      continue;
    }
    if (spec[name]?.type === "string" && !word.includes("=")) i++;
  }
  return out;
}

/** Options a `--resume` may still take: they change nothing recorded in the run. */
export const OPTIONS_ALLOWED_WITH_RESUME = ["resume", "quiet", "env-file"] as const;

/** Refuses any option but {@link OPTIONS_ALLOWED_WITH_RESUME} with `--resume` (it would be dropped). */
export function refuseOptionsWithResume(command: string, options: object): void {
  const allowed: readonly string[] = OPTIONS_ALLOWED_WITH_RESUME;
  const others = givenOptions(options).filter((name) => !allowed.includes(name));
  const why =
    "not allowed with --resume (a resumed run keeps the options it was started with; only --quiet and " +
    "--env-file may be given)";
  refuseGiven(command, options, others, why);
}

/** Refuses the model options a mode ignores: `--reference` live ones, `--live` reference ones, `--check-only` all. */
export function refuseModelOptionsIgnoredBy(
  mode: "reference" | "live" | "check-only",
  options: object,
): void {
  const live = ["model", "env-file", "no-enable-thinking-field", "no-chat-template-kwargs"];
  if (mode === "reference") refuseGiven("--reference", options, live, "only used with --live");
  if (mode === "live") refuseGiven("--live", options, ["reference-delay-ms"], "only used with --reference");
  if (mode === "check-only") {
    const provider = ["concurrency", "timeout-ms", "max-retries", "max-response-bytes", "decision-batch"];
    const why =
      "not allowed: a check-only run sends nothing, so it uses no model or provider option (leave it out)";
    refuseGiven("--check-only", options, ["reference", ...live, ...provider, "reference-delay-ms"], why);
  }
}
