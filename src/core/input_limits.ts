/**
 * The most bytes each kind of small JSON input may hold, checked from the file's size before it is read (so
 * also the most characters its JSON text can have). Kinds with their own caps are not here: run files
 * (`MAX_RUN_FILE_BYTES`), provider and engine replies (their byte caps), datasets, corpora and transcripts
 * (`MAX_TEXT_BYTES`: they are legitimately large). Each limit is far above any real file of its kind.
 *
 * @module
 */

const MiB = 1024 * 1024;

/** Byte limits per input kind (see the module doc). */
export const INPUT_MAX_BYTES = {
  /** An official-format prediction file (`hotpot score --pred`): 7,405 dev answers are ~2 MB. */
  predictions: 64 * MiB,
  /** A sweep case's `case.json` (`--case`): the built-in ones are ~4 KB. */
  sweepCase: 1 * MiB,
  /** A Hermes probe file (`engines run --probes`): a few KB per probe. */
  probes: 16 * MiB,
} as const;
