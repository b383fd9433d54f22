/**
 * A heap budget for long runs (like Go's GOMEMLIMIT): a full collection when the heap in use passes it.
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";

/**
 * Heap in use (bytes) above which a full collection is asked for. Above V8's own peak while the live heap is
 * that of a few hundred questions (~45 MiB live, collected by V8 near 200 MiB): a forced collection costs two
 * full collections and the regrowth of the heap it gives back, so it only stops the growth of longer runs.
 */
export const HEAP_BUDGET_BYTES = 224 * 1024 * 1024;
/** After a collection, the next one waits until the heap has grown by at least this much (bytes). */
export const HEAP_BUDGET_HEADROOM_BYTES = 96 * 1024 * 1024;
/** Least time between two collections asked for by a check (ms). */
export const HEAP_BUDGET_INTERVAL_MS = 1000;
/** Least time between two reads of the heap size by a check (ms): a node ends far more often than that. */
export const HEAP_BUDGET_READ_SPACING_MS = 4;

let collect: (() => void) | null | undefined;

/** `Deno.memoryUsage().heapUsed` without its `/proc/self/statm` read. */
function heapUsed(): number {
  return v8.getHeapStatistics().used_heap_size;
}

function fullCollection(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc");
    collect = typeof gc === "function" ? gc as () => void : null;
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    collect = null; // no way to ask: the budget does nothing
  }
  return collect;
}

/** Keeps the heap in use under the budget (near it, the next collection waits for the headroom's growth). */
export class HeapBudget {
  readonly #bytes: number;
  readonly #headroom: number;
  #threshold: number;
  #last = Number.NEGATIVE_INFINITY;
  #lastRead = Number.NEGATIVE_INFINITY;
  collections = 0;

  constructor(bytes = HEAP_BUDGET_BYTES, headroom = HEAP_BUDGET_HEADROOM_BYTES) {
    this.#bytes = bytes;
    this.#headroom = headroom;
    this.#threshold = bytes;
  }

  /** Asks for a full collection when the heap in use is over the threshold (cheap otherwise). */
  check(): void {
    const now = performance.now();
    if (now - this.#last < HEAP_BUDGET_INTERVAL_MS || now - this.#lastRead < HEAP_BUDGET_READ_SPACING_MS) {
      return;
    }
    this.#lastRead = now;
    if (heapUsed() <= this.#threshold) return;
    this.#last = now;
    this.#collectNow();
  }

  /** Asks for a full collection now, only when over the budget (under it, one only costs CPU). */
  collect(): void {
    if (heapUsed() <= this.#bytes) return;
    this.#collectNow();
  }

  #collectNow(): void {
    const gc = fullCollection();
    if (gc === null) return;
    gc();
    this.collections++;
    this.#threshold = Math.max(this.#bytes, heapUsed() + this.#headroom);
  }
}

/** The process's budget, shared by the executor (after every node) and the manifest writer. */
export const heapBudget: HeapBudget = new HeapBudget();
