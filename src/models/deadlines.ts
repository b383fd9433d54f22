/**
 * Deadlines of one fixed duration sharing one timer: they fall due in the order set, so one timer armed for
 * the oldest pending one serves them all; with none pending it is cleared (it never holds the process open).
 * @module
 */

interface Entry {
  /** When it is due (`performance.now()` time). */
  at: number;
  expire: () => void;
  done: boolean;
}

/** Deadlines of {@link ms} milliseconds. */
export class Deadlines {
  // Pending (or done but not yet dropped) entries, in the order set, the first at `#head`.
  #queue: Entry[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly ms: number) {}

  /** Calls `expire` (at most once) after {@link ms} milliseconds, unless the returned clear is called first. */
  set(expire: () => void): () => void {
    const entry: Entry = { at: performance.now() + this.ms, expire, done: false };
    this.#queue.push(entry);
    if (this.#timer === undefined) this.#arm(this.ms);
    return () => {
      if (entry.done) return;
      entry.done = true;
      this.#dropDone();
    };
  }

  /** How many deadlines are pending. */
  get pending(): number {
    let count = 0;
    for (let i = this.#head; i < this.#queue.length; i++) if (!this.#queue[i].done) count++;
    return count;
  }

  #arm(delay: number): void {
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, delay));
  }

  /** Drops the done entries at the head; with none pending, clears the timer. */
  #dropDone(): void {
    while (this.#head < this.#queue.length && this.#queue[this.#head].done) this.#head++;
    if (this.#head < this.#queue.length) {
      // Compact now and then: entries before the head are gone for good.
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#head = 0;
      }
      return;
    }
    this.#queue = [];
    this.#head = 0;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #fire(): void {
    this.#timer = undefined;
    const now = performance.now();
    const due: Entry[] = [];
    while (this.#head < this.#queue.length) {
      const entry = this.#queue[this.#head];
      if (!entry.done) {
        if (entry.at > now) break;
        entry.done = true;
        due.push(entry);
      }
      this.#head++;
    }
    this.#dropDone();
    if (this.#head < this.#queue.length && this.#timer === undefined) {
      this.#arm(this.#queue[this.#head].at - now);
    }
    for (const entry of due) entry.expire();
  }
}
