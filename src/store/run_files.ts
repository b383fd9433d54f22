/**
 * The names a run directory holds, apart from the code that writes it (readers load only these).
 * @module
 */

export const LOCK_FILE = ".lock";

export const RUN_FILES = {
  journal: "journal.jsonl",
  manifest: "manifest.json",
  objects: "objects",
  lock: LOCK_FILE,
} as const;

/** Marks the temp sibling a run is built in before its rename: `.<name>.creating-<pid>-<random>`. */
export const CREATING_MARK = ".creating-";
