/**
 * Reading a transcript file as text or JSON, with errors that name the file.
 * @module
 */
import { UsageError } from "../../errors.ts";
import { readInputText } from "../../fs_input.ts";
import { loneSurrogatePath } from "../../core/lone_surrogates.ts";
import { parseJson } from "../../core/json_read.ts";

/** Reads a transcript file as UTF-8 text; a {@link UsageError} names a path that cannot be read. */
export function readTranscriptText(path: string): Promise<string> {
  return readInputText(path, "--transcript");
}

/** Parses JSON text; invalid JSON is a {@link UsageError} naming the file (and line, when given). */
export function parseJsonText(text: string, path: string, line?: number): unknown {
  let value: unknown;
  try {
    value = parseJson(text, { keepLoneSurrogates: true }); // named below, as every loader names it
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new UsageError(
      `${path}${line === undefined ? "" : `: line ${line}`}: invalid JSON: ${error.message}`,
    );
  }
  // Refused as every loader refuses it, naming the file and the place.
  const lone = loneSurrogatePath(text, value);
  if (lone !== null) {
    throw new UsageError(
      `${path}${line === undefined ? "" : `: line ${line}`}: ${lone}: a string with a lone surrogate`,
    );
  }
  return value;
}
