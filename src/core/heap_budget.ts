/**
 * A heap budget for long runs. V8 lets garbage grow to several times the live heap before it collects (on a
 * hotpot run: ~100 MB live, 400+ MB of heap), so a run's resident memory would follow V8's heuristics rather
 * than what the run holds. Like Go's GOMEMLIMIT, the budget asks for a full collection when the heap in use
 * passes it (at most once per interval), which keeps a run's memory flat in its length at a small CPU cost.
 *
 * The collection is V8's own `gc`, exposed through `node:v8` and `node:vm`; where that is unavailable the
 * budget does nothing (memory is then only V8's business, as before).
 *
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";

/** Heap in use (bytes) above which a full collection is asked for. */
export const HEAP_BUDGET_BYTES = 192 * 1024 * 1024;
/** Least time between two collections asked for by the budget (ms). */
export const HEAP_BUDGET_INTERVAL_MS = 1000;

let collect: (() => void) | null | undefined;

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

/** Keeps the heap in use under a budget (see the module documentation). */
export class HeapBudget {
  readonly #bytes: number;
  readonly #intervalMs: number;
  #last = Number.NEGATIVE_INFINITY;
  /** Collections asked for so far. */
  collections = 0;

  /** A budget of `bytes` of heap in use, checked at most once per `intervalMs`. */
  constructor(bytes = HEAP_BUDGET_BYTES, intervalMs = HEAP_BUDGET_INTERVAL_MS) {
    this.#bytes = bytes;
    this.#intervalMs = intervalMs;
  }

  /** Asks for a full collection when the heap in use is over the budget (cheap otherwise). */
  check(): void {
    const now = performance.now();
    if (now - this.#last < this.#intervalMs) return;
    this.#last = now;
    if (Deno.memoryUsage().heapUsed <= this.#bytes) return;
    const gc = fullCollection();
    if (gc === null) return;
    gc();
    this.collections++;
  }
}

/** The process's budget, shared by the executor (after every node) and the manifest writer. */
export const heapBudget: HeapBudget = new HeapBudget();
