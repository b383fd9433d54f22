/**
 * What a user hands an outside process: its command line, split shell-like without a shell or any expansion,
 * and the variables passed by name (`--engine-env NAME`, `--agent-env NAME`; never printed).
 *
 * @module
 */
import { UsageError } from "../../errors.ts";

/**
 * Splits `line` into words (single quotes literal, double quotes honour `\"` and `\\`, a backslash escapes the
 * next character); an unterminated quote or trailing backslash is a {@link UsageError}.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
      continue;
    }
    inWord = true; // a quote, an escape or a plain character: part of a word (even an empty quoted one)
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError(`command ${JSON.stringify(line)}: unterminated single quote`);
      word += line.slice(i + 1, end);
      i = end + 1;
    } else if (ch === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) i++;
        word += line[i++];
      }
      if (i >= line.length) {
        throw new UsageError(`command ${JSON.stringify(line)}: unterminated double quote`);
      }
      i++;
    } else if (ch === "\\") {
      if (i + 1 >= line.length) throw new UsageError(`command ${JSON.stringify(line)}: trailing backslash`);
      word += line[i + 1];
      i += 2;
    } else {
      word += ch;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Names a variable option may pass: shell-style identifiers. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The values of `names` in this process's environment; `option` (e.g. `--agent-env`) names errors. */
export function readPassedEnv(names: readonly string[], option: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    if (!ENV_NAME.test(name)) throw new UsageError(`${option} ${name}: not a variable name`);
    const value = Deno.env.get(name);
    if (value === undefined) throw new UsageError(`${option} ${name}: the variable is not set`);
    env[name] = value;
  }
  return env;
}
