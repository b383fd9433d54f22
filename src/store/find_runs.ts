/**
 * Finding the run directories under a folder at any depth (symlinks not followed, `.creating-` skipped).
 * @module
 */
import { join, relative } from "node:path";
import { CREATING_MARK, RUN_FILES } from "./run_files.ts";
import { isFsError } from "./unsafe_file.ts";

/** True when `dir` holds a journal or a manifest (as any kind of entry: `verify` judges it). */
export async function isRunDirectory(dir: string): Promise<boolean> {
  for (const name of [RUN_FILES.journal, RUN_FILES.manifest]) {
    try {
      await Deno.lstat(join(dir, name));
      return true;
    } catch (error) {
      if (!isFsError(error)) throw error;
    }
  }
  return false;
}

/** What a search found: run directories (sorted) and folders that could not be listed. */
export interface FoundRuns {
  runs: string[];
  unreadable: string[];
}

/** The run directories under `root` (or `[root]` when `root` is itself a run), sorted by relative path. */
export async function findRuns(root: string): Promise<FoundRuns> {
  const found: FoundRuns = { runs: [], unreadable: [] };
  const walk = async (dir: string): Promise<void> => {
    if (await isRunDirectory(dir)) {
      found.runs.push(dir);
      return;
    }
    const children: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isDirectory && !entry.name.includes(CREATING_MARK)) children.push(entry.name);
      }
    } catch (error) {
      if (!isFsError(error)) throw error;
      found.unreadable.push(dir);
      return;
    }
    for (const name of children.sort()) await walk(join(dir, name));
  };
  await walk(root);
  found.runs.sort((a, b) => {
    const x = relative(root, a);
    const y = relative(root, b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return found;
}
