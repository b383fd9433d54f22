/**
 * Shell-like splitting of a command line into words, without a shell: whitespace separates words,
 * single quotes keep everything literally, double quotes keep whitespace and honour `\"` and `\\`, and a
 * backslash outside quotes escapes the next character. No expansion of any kind.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";

/** Splits `line` into words; an unterminated quote or trailing backslash is a {@link UsageError}. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError(`command ${JSON.stringify(line)}: unterminated single quote`);
      word += line.slice(i + 1, end);
      inWord = true;
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
      inWord = true;
      i++;
    } else if (ch === "\\") {
      if (i + 1 >= line.length) throw new UsageError(`command ${JSON.stringify(line)}: trailing backslash`);
      word += line[i + 1];
      inWord = true;
      i += 2;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else {
      word += ch;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
