/**
 * Reading a transcript file as text or JSON, with errors that name the file.
 *
 * @module
 */
import { UsageError } from "../../errors.ts";

/** Reads a file as UTF-8 text; a missing or unreadable file is a {@link UsageError}. */
export async function readTranscriptText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new UsageError(`${path}: no such file`);
    if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.IsADirectory) {
      throw new UsageError(`${path}: cannot read: ${error.message}`);
    }
    throw error;
  }
}

/** Parses JSON text; invalid JSON is a {@link UsageError} naming the file (and line, when given). */
export function parseJsonText(text: string, path: string, line?: number): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new UsageError(
      `${path}${line === undefined ? "" : `: line ${line}`}: invalid JSON: ${error.message}`,
    );
  }
}
