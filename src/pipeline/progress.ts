/**
 * Progress on stderr that people can plan with: per stage the work done of the work planned, the elapsed
 * time, the rate, an ETA, and the failures and retries so far. A live single line when stderr is a terminal;
 * otherwise (logs, CI) a plain line per stage when it finishes and a status line for every unfinished stage
 * every minute. Never writes to stdout, which carries results.
 *
 * - Elapsed: since the stage's first finished unit (work on a stage starts when its inputs are ready, so the
 *   time it waited is not counted against its rate); before that, nothing is shown.
 * - Rate: units per second over the finished units after the first, (done − 1) / (last − first), once two
 *   units are done; ETA = (planned − done) / rate. Memo, resume and frozen hits count as done (they are
 *   fast, so an ETA early in a resumed run is optimistic).
 * - Failures: units that finished with status "invalid"; retries: provider attempts beyond the first.
 *
 * @module
 */

/** Seconds as `45s`, `3m05s` or `2h07m`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** A rate in units per second, or per minute when slow. */
function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond.toFixed(1)}/s` : `${(perSecond * 60).toFixed(1)}/min`;
}

/** What one finished unit reported. */
export interface TickInfo {
  /** The unit finished with status "invalid". */
  failed?: boolean;
  /** A provider unit a check-only run did not send (not a failure: counted apart). */
  notSent?: boolean;
  /** Provider attempts beyond the first. */
  retries?: number;
}

interface StageState {
  planned: number;
  done: number;
  failed: number;
  notSent: number;
  retries: number;
  first: number | null;
  last: number | null;
}

/** A stage's figures at one moment. */
export interface StageFigures {
  stage: string;
  done: number;
  planned: number;
  elapsedSeconds: number | null;
  ratePerSecond: number | null;
  etaSeconds: number | null;
  failed: number;
  retries: number;
  /** Check-only: provider units not sent. */
  notSent: number;
}

/** Counts planned and finished work per stage (stage names as the executor runs them). */
export class Progress {
  readonly #title: string;
  readonly #stages = new Map<string, StageState>();
  readonly #live: boolean;
  readonly #quiet: boolean;
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #name: (stage: string) => string;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastDraw = 0;

  /**
   * `quiet` silences everything (tests); `live` defaults to whether stderr is a terminal; `names` gives the
   * display name of a stage (default: the stage's own name); `now` (ms) and `intervalMs` (the plain status
   * line's period, default one minute) are for tests.
   */
  constructor(
    title: string,
    options: {
      quiet?: boolean;
      live?: boolean;
      names?: (stage: string) => string;
      now?: () => number;
      intervalMs?: number;
    } = {},
  ) {
    this.#title = title;
    this.#name = options.names ?? ((stage) => stage);
    this.#quiet = options.quiet ?? false;
    this.#live = options.live ?? Deno.stderr.isTerminal();
    this.#now = options.now ?? (() => performance.now());
    this.#intervalMs = options.intervalMs ?? 60_000;
  }

  /** Announces `count` more units of work for `stage`. */
  plan(stage: string, count: number): void {
    const s = this.#state(stage);
    s.planned += count;
    if (!this.#quiet && !this.#live && this.#timer === undefined && !this.#allDone()) {
      const timer = setInterval(() => this.#printStatus(), this.#intervalMs);
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /** Marks one unit of `stage` finished, with whether it failed and how many retries it took. */
  tick(stage: string, info: TickInfo = {}): void {
    const s = this.#state(stage);
    const now = this.#now();
    s.done++;
    s.first ??= now;
    s.last = now;
    if (info.notSent) s.notSent++;
    else if (info.failed) s.failed++;
    s.retries += info.retries ?? 0;
    if (this.#quiet) return;
    if (this.#live) {
      if (now - this.#lastDraw > 100 || s.done === s.planned) {
        this.#lastDraw = now;
        this.#draw();
      }
    } else if (s.done === s.planned) {
      console.error(`${this.#title}: ${this.#line(this.figures(stage)!)}`);
    }
    if (this.#allDone()) this.#stopTimer();
  }

  /** The figures of one stage now (null for a stage never planned or ticked). */
  figures(stage: string): StageFigures | null {
    const s = this.#stages.get(stage);
    if (!s) return null;
    const now = this.#now();
    const rate = s.done >= 2 && s.last! > s.first! ? (s.done - 1) / ((s.last! - s.first!) / 1000) : null;
    return {
      stage,
      done: s.done,
      planned: s.planned,
      elapsedSeconds: s.first === null ? null : ((s.done >= s.planned ? s.last! : now) - s.first) / 1000,
      ratePerSecond: rate,
      etaSeconds: s.done >= s.planned ? 0 : rate ? (s.planned - s.done) / rate : null,
      failed: s.failed,
      retries: s.retries,
      notSent: s.notSent,
    };
  }

  /** The plain status lines of every unfinished stage (what the periodic log line prints). */
  statusLines(): string[] {
    return [...this.#stages.keys()]
      .map((stage) => this.figures(stage)!)
      .filter((f) => f.done < f.planned)
      .map((f) => `${this.#title}: ${this.#line(f)}`);
  }

  /** Prints a message on its own line. */
  note(message: string): void {
    if (this.#quiet) return;
    if (this.#live) Deno.stderr.writeSync(new TextEncoder().encode("\r\x1b[2K"));
    console.error(message);
  }

  /** Ends the live line and the periodic status lines. */
  end(): void {
    this.#stopTimer();
    if (this.#quiet || !this.#live) return;
    this.#draw();
    Deno.stderr.writeSync(new TextEncoder().encode("\n"));
  }

  #state(stage: string): StageState {
    let s = this.#stages.get(stage);
    if (!s) {
      s = { planned: 0, done: 0, failed: 0, notSent: 0, retries: 0, first: null, last: null };
      this.#stages.set(stage, s);
    }
    return s;
  }

  #allDone(): boolean {
    return [...this.#stages.values()].every((s) => s.done >= s.planned);
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #printStatus(): void {
    for (const line of this.statusLines()) console.error(line);
  }

  /** `answer 120/480 · 2m05s · 1.0/s · ETA 6m00s · 2 failed · 3 retries` (`… 480/480 done · …` at the end) */
  #line(f: StageFigures): string {
    const parts = [`${this.#name(f.stage)} ${f.done}/${f.planned}${f.done >= f.planned ? " done" : ""}`];
    if (f.elapsedSeconds !== null) parts.push(formatDuration(f.elapsedSeconds));
    if (f.ratePerSecond !== null) parts.push(formatRate(f.ratePerSecond));
    if (f.done < f.planned) parts.push(`ETA ${f.etaSeconds === null ? "?" : formatDuration(f.etaSeconds)}`);
    if (f.failed > 0) parts.push(`${f.failed} failed`);
    if (f.notSent > 0) parts.push(`${f.notSent} not sent (check-only)`);
    if (f.retries > 0) parts.push(`${f.retries} retries`);
    return parts.join(" · ");
  }

  #draw(): void {
    const figures = [...this.#stages.keys()].map((stage) => this.figures(stage)!);
    const open = figures.filter((f) => f.done < f.planned);
    const finished = figures.length - open.length;
    const failed = figures.reduce((n, f) => n + f.failed, 0);
    const retries = figures.reduce((n, f) => n + f.retries, 0);
    const parts = open.map((f) =>
      `${this.#name(f.stage)} ${f.done}/${f.planned}${
        f.etaSeconds !== null ? ` ETA ${formatDuration(f.etaSeconds)}` : ""
      }`
    );
    const tail = [`${finished}/${figures.length} stages done`];
    if (failed > 0) tail.push(`${failed} failed`);
    if (retries > 0) tail.push(`${retries} retries`);
    const line = `${this.#title}: ${[...parts, tail.join(", ")].join(" · ")}`;
    const width = Deno.stderr.isTerminal() ? Math.max(40, Deno.consoleSize().columns - 1) : 160;
    Deno.stderr.writeSync(new TextEncoder().encode(`\r\x1b[2K${line.slice(0, width)}`));
  }
}
