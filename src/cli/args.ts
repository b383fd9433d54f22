/**
 * Command-line parsing: `parseArgs` for the syntax, zod for the values; problems are {@link UsageError}s.
 * @module
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { z } from "zod";
import { UsageError } from "../errors.ts";
import { refuseRepeatedOptions } from "../core/option_rules.ts";
import { CLI } from "../core/program_name.ts";
import { didYouMean, nearestOption } from "./option_suggest.ts";

interface ParsedCommand<T> {
  options: T;
  positionals: string[];
}

/** Runs the subcommand `argv[0]` of `command` from `subs`; none prints `usage` (exit 2), `--help` too (exit 0). */
export async function dispatch(
  command: string,
  argv: string[],
  subs: Readonly<Record<string, (argv: string[]) => Promise<number>>>,
  usage: string,
): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== undefined && Object.hasOwn(subs, sub)) return await subs[sub](rest);
  if (sub === undefined || sub === "--help" || sub === "-h") {
    console.log(usage);
    return sub === undefined ? 2 : 0;
  }
  const names = Object.keys(subs);
  const expected = `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  throw new UsageError(
    `${command}: unknown subcommand '${sub}'${didYouMean(sub, names)} (expected ${expected})`,
  );
}

/** Prints a command's `--help` text; returns its exit code, 0. */
export function printHelp(help: string): number {
  console.log(help);
  return 0;
}

/** Throws a {@link UsageError} `message` when something is at `path` (a missing path passes). */
export async function refuseExisting(path: string, message: string): Promise<void> {
  const exists = await Deno.lstat(path).then(() => true, (error) => {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  });
  if (exists) throw new UsageError(message);
}

const SHORT: Readonly<Record<string, string>> = { output: "o", quiet: "q" };

/**
 * Parses `argv` against one option table, a zod shape: booleans are flags, arrays repeatable, the rest take a
 * value (`--help` is added and left to the caller).
 * @example
 * ```ts
 * parseOptions("tokens", ["--json", "f.json"], { json: z.boolean().optional() }); // options.json === true
 * ```
 */
export function parseOptions<S extends z.ZodRawShape>(
  command: string,
  argv: string[],
  shape: S,
): ParsedCommand<z.infer<z.ZodObject<{ help: z.ZodOptional<z.ZodBoolean> } & S>>> {
  const spec: ParseArgsOptionsConfig = {};
  for (const [name, type] of Object.entries(shape)) {
    if (name === "help") continue;
    let def = (type as z.ZodType)._zod.def;
    while ("innerType" in def) def = (def.innerType as z.ZodType)._zod.def;
    spec[name] = {
      type: def.type === "boolean" ? "boolean" : "string",
      ...(def.type === "array" ? { multiple: true } : {}),
      ...(SHORT[name] ? { short: SHORT[name] } : {}),
    };
  }
  return parseCommand(command, argv, spec, z.object({ help: z.boolean().optional(), ...shape }));
}

/** Parses `argv` with `spec`, then validates the values with `schema` (`--help` is left to the caller). */
export function parseCommand<S extends z.ZodType>(
  command: string,
  argv: string[],
  spec: ParseArgsOptionsConfig,
  schema: S,
): ParsedCommand<z.infer<S>> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { help: { type: "boolean", short: "h" }, ...spec },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    if (error instanceof TypeError) {
      throw new UsageError(`${command}: ${syntaxProblem(command, error, spec)}`);
    }
    throw error;
  }
  refuseRepeatedOptions(command, parsed.tokens ?? [], spec);
  const result = schema.safeParse(parsed.values);
  if (!result.success) {
    // The option as given, then what is wrong: `--input-cap 100: must be a whole number from 256 to 10000000`.
    const problems = result.error.issues.map((issue) => {
      const field = issue.path.length > 0 ? `--${issue.path.join(".")}` : "options";
      const key = issue.path[0];
      const value = typeof key === "string" && key in parsed.values
        ? (parsed.values as Record<string, unknown>)[key]
        : undefined;
      const given = typeof value === "string"
        ? ` ${cutValue(/^[^\s'"]+$/.test(value) ? value : JSON.stringify(value))}`
        : "";
      return `${field}${given}: ${issueText(issue)}`;
    });
    throw new UsageError(`${command}: ${problems.join("; ")}`);
  }
  return { options: result.data, positionals: parsed.positionals };
}

/** One line for a `parseArgs` syntax error (an unknown option with the nearest known one), ending with the help. */
function syntaxProblem(command: string, error: TypeError, spec: ParseArgsOptionsConfig): string {
  const code = (error as TypeError & { code?: string }).code;
  const unknown = /Unknown option '([^']+)'/.exec(error.message);
  const help = `see '${CLI} ${command} --help'`;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
    const typed = unknown[1];
    const meant = typed.startsWith("--") ? nearestOption(typed, ["help", ...Object.keys(spec)]) : null;
    const suggestion = meant !== null ? `; did you mean --${meant}?` : "";
    return `unknown option ${typed}${suggestion} (${help})`;
  }
  const ambiguous = /Option '(-[^']+)' argument is ambiguous/.exec(error.message);
  if (ambiguous) {
    // `--compressions -1`: parseArgs reads a value beginning with a dash as an option.
    const name = ambiguous[1];
    return `${name} needs a value, and the word after it starts with "-" (no option here takes a negative ` +
      `number; a value that starts with "-" is given as ${name}=VALUE) (${help})`;
  }
  return `${cutValue(error.message.split("\n", 1)[0])} (${help})`;
}

/** The most characters of a given value quoted in an error line. */
export const QUOTED_VALUE_CHARS = 120;

/** `text` cut to {@link QUOTED_VALUE_CHARS} characters, saying how much was left out. */
export function cutValue(text: string): string {
  if (text.length <= QUOTED_VALUE_CHARS) return text;
  return `${text.slice(0, QUOTED_VALUE_CHARS)}… (${text.length} characters in all)`;
}

/** A zod issue in words: "must be at most N" / "at least N" for bounds, else zod's message. */
function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "too_big") return `must be at most ${issue.maximum}`;
  if (issue.code === "too_small") return `must be at least ${issue.minimum}`;
  return issue.message;
}
