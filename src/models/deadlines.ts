/**
 * Deadlines of one fixed duration sharing one timer: a client's body deadlines (every attempt gets the same
 * `timeoutMs`) are due in the order they were set, so the earliest is always the oldest one still pending and
 * one timer, armed for it, serves them all. Setting and clearing a deadline is a queue entry, not a timer of
 * its own: with 64 calls in flight the timer is armed again only when it fires (once per duration at most)
 * or when the queue was empty. When no deadline is pending the timer is cleared, so it never holds the
 * process open.
 *
 * @module
 */

interface Entry {
  /** When it is due (`performance.now()` time). */
  at: number;
  expire: () => void;
  done: boolean;
}

/** Deadlines of {@link ms} milliseconds (see the module documentation). */
export class Deadlines {
  /** The duration of every deadline (ms). */
  readonly ms: number;
  /** Pending (or done but not yet dropped) entries, in the order set, the first at `#head`. */
  #queue: Entry[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Deadlines of `ms` milliseconds each. */
  constructor(ms: number) {
    this.ms = ms;
  }

  /**
   * Calls `expire` once {@link ms} milliseconds have passed, unless the returned function (which clears the
   * deadline) is called first. `expire` runs at most once.
   */
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
