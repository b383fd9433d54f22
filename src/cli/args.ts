/**
 * Command-line parsing shared by every command: `node:util` `parseArgs` for the syntax, zod for the values.
 * Any problem becomes a {@link UsageError} (exit code 2) that names the option and the value.
 *
 * @module
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import type { z } from "zod";
import { UsageError } from "../errors.ts";
import { refuseRepeatedOptions } from "../core/option_rules.ts";
import { CLI } from "../core/program_name.ts";
import { nearestOption } from "./option_suggest.ts";

/** Parsed options and positionals of one command. */
export interface ParsedCommand<T> {
  options: T;
  positionals: string[];
}

/**
 * Parses `argv` with the given option spec, then validates the option values with `schema`.
 * `--help`/`-h` is handled by the caller through `options.help`.
 */
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
    // The option as it was given, then what is wrong with it: `--input-cap 100: must be a whole number from
    // 256 to 10000000`.
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

/**
 * One line for a syntax error of `parseArgs`: an unknown option is named with the nearest known one (node's
 * own message suggests `-- "--name` with an unbalanced quote); any other problem keeps node's message. Both
 * end with where the help is.
 */
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
    // `--compressions -1`: the value begins with a dash, so parseArgs reads it as an option (three lines).
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

/** A zod issue in words: bounds say "must be at most N" / "at least N"; anything else keeps zod's message. */
function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "too_big") return `must be at most ${issue.maximum}`;
  if (issue.code === "too_small") return `must be at least ${issue.minimum}`;
  return issue.message;
}
