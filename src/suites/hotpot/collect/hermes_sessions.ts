/**
 * The Hermes sessions folder of `hotpot collect --hermes-sessions DIR`: one `<question id>.json` per question.
 * Checked before the run starts (a folder, every present session a regular file, at least one selected
 * question covered) and read through the shared input checks, so a FIFO or a loop never blocks or crashes.
 *
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../../../errors.ts";
import {
  inputError,
  readInputFile,
  readInputJson,
  statInputDirectory,
  statInputFile,
  subjectOf,
} from "../../../fs_input.ts";

const OPTION = "--hermes-sessions";

/** The session file of question `id` in `dir`. */
export function hermesSessionPath(dir: string, id: string): string {
  return join(dir, `${id}.json`);
}

async function present(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw inputError(error, path, OPTION);
  }
}

/**
 * Refuses (with a {@link UsageError}) a sessions folder that is not a directory, holds a session that is not a
 * regular file, or has no session for any of the selected question ids.
 */
export async function checkHermesSessions(dir: string, ids: readonly string[]): Promise<void> {
  await statInputDirectory(dir, OPTION);
  let found = 0;
  for (const id of ids) {
    const path = hermesSessionPath(dir, id);
    if (!(await present(path))) continue;
    await statInputFile(path, OPTION);
    found++;
  }
  if (found === 0) {
    throw new UsageError(
      `${subjectOf(dir, OPTION)}: no session file for any of the ${ids.length} selected question(s) ` +
        `(expected <question id>.json)`,
    );
  }
}

/** Reads question `id`'s session JSON, or `null` when the folder has none for it. */
export async function readHermesSession(dir: string, id: string): Promise<unknown | null> {
  const path = hermesSessionPath(dir, id);
  if (!(await present(path))) return null;
  return await readInputJson(path, OPTION);
}

/** The bytes of question `id`'s session file, or `null` when the folder has none for it. */
export async function readHermesSessionBytes(dir: string, id: string): Promise<Uint8Array | null> {
  const path = hermesSessionPath(dir, id);
  if (!(await present(path))) return null;
  return await readInputFile(path, OPTION);
}
