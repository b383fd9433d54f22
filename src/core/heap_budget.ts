/**
 * A heap budget for long runs. V8 lets garbage grow to several times the live heap before it collects, so a
 * run's resident memory would follow V8's heuristics rather than what it holds. Like Go's GOMEMLIMIT, the
 * budget asks for a full collection when the heap in use passes it: memory flat in the run's length.
 *
 * The collection is V8's own `gc`, exposed through `node:v8` and `node:vm`; where that is unavailable the
 * budget does nothing (memory is then only V8's business, as before).
 *
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";

/**
 * Heap in use (bytes) above which a full collection is asked for: low enough that a 480-question hotpot run
 * stays within the scale-flat-memory bound, high enough that a small run never reaches it (its CPU unchanged).
 */
export const HEAP_BUDGET_BYTES = 160 * 1024 * 1024;
/** After a collection, the next one waits until the heap has grown by at least this much (bytes). */
export const HEAP_BUDGET_HEADROOM_BYTES = 96 * 1024 * 1024;
/** Least time between two collections asked for by a check (ms): bounds the CPU the budget costs. */
export const HEAP_BUDGET_INTERVAL_MS = 1000;

let collect: (() => void) | null | undefined;

/**
 * The heap in use (bytes): V8's own figure, `Deno.memoryUsage().heapUsed`, read without the resident-size read
 * (a file read of `/proc/self/statm`) that `Deno.memoryUsage()` makes on every call.
 */
function heapUsed(): number {
  return v8.getHeapStatistics().used_heap_size;
}

/** V8's full collection, or null when this runtime does not expose it. */
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

/**
 * Keeps the heap in use under a budget (see the module documentation): a collection when the heap in use
 * passes the budget, or, when the live heap itself is near it, once the heap has grown by the headroom since
 * the last collection (so a run whose live heap outgrows the budget is not collected at every check).
 */
export class HeapBudget {
  readonly #bytes: number;
  readonly #headroom: number;
  #threshold: number;
  #last = Number.NEGATIVE_INFINITY;
  /** Collections asked for so far. */
  collections = 0;

  /** A budget of `bytes` of heap in use, with `headroom` of growth between two collections. */
  constructor(bytes = HEAP_BUDGET_BYTES, headroom = HEAP_BUDGET_HEADROOM_BYTES) {
    this.#bytes = bytes;
    this.#headroom = headroom;
    this.#threshold = bytes;
  }

  /** Asks for a full collection when the heap in use is over the threshold (cheap otherwise). */
  check(): void {
    const now = performance.now();
    if (now - this.#last < HEAP_BUDGET_INTERVAL_MS) return;
    if (heapUsed() <= this.#threshold) return;
    this.#last = now;
    this.#collectNow();
  }

  /**
   * Asks for a full collection now (after a large input was read and dropped, before another peak), when the
   * heap in use is over the budget: under it, a full collection only costs CPU (a small run's four of them
   * were ~1.5 s of a 7 s hotpot run), and the budget holds anyway.
   */
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
