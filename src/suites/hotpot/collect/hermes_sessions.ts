/**
 * The folder of `hotpot collect --hermes-sessions DIR` (`<question id>.json` each), checked before the run,
 * read through the shared input checks (a FIFO or a loop never blocks).
 * @module
 */
import { join } from "node:path";
import { UsageError } from "../../../errors.ts";
import {
  inputError,
  readInputFile,
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

/** A {@link UsageError} unless `dir` is a folder of regular session files covering a selected question. */
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

/** The bytes of question `id`'s session file, or `null` when the folder has none for it. */
export async function readHermesSessionBytes(dir: string, id: string): Promise<Uint8Array | null> {
  const path = hermesSessionPath(dir, id);
  if (!(await present(path))) return null;
  return await readInputFile(path, OPTION);
}
