/**
 * The most bytes each kind of small JSON input may hold, checked from its size before it is read.
 * @module
 */

const MiB = 1024 * 1024;

export const INPUT_MAX_BYTES = { predictions: 64 * MiB, sweepCase: 1 * MiB, probes: 16 * MiB } as const;
