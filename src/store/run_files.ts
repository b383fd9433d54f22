/**
 * The names a run directory holds, apart from the code that writes it, so a reader (verify, the run finder)
 * loads only these names.
 *
 * @module
 */

/** The lock's file name inside a run directory. */
export const LOCK_FILE = ".lock";

/** The store's own names inside a run directory. */
export const RUN_FILES = {
  journal: "journal.jsonl",
  manifest: "manifest.json",
  objects: "objects",
  /** The writer's lock (see run_lock.ts): present only while a run is being written or after a crash. */
  lock: LOCK_FILE,
} as const;

/**
 * Marks the temp sibling a run directory is built in before it is renamed into place:
 * `.<name>.creating-<pid>-<random>`.
 */
export const CREATING_MARK = ".creating-";
