/**
 * Reading a transcript file as text or JSON, with errors that name the file.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { loneSurrogatePath } from "../../core/lone_surrogates.ts";
import { parseJson } from "../../core/json_read.ts";

/** Parses JSON text; invalid JSON is a {@link UsageError} naming the file (and line, when given). */
export function parseJsonText(text: string, path: string, line?: number): unknown {
  const where = `${path}${line === undefined ? "" : `: line ${line}`}`;
  let value: unknown;
  try {
    value = parseJson(text, { keepLoneSurrogates: true }); // named below, as every loader names it
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new UsageError(`${where}: invalid JSON: ${error.message}`);
  }
  const lone = loneSurrogatePath(text, value);
  if (lone !== null) throw new UsageError(`${where}: ${lone}: a string with a lone surrogate`);
  return value;
}
