/**
 * Progress on stderr (stdout carries results): per stage done of planned, rate, ETA, failures and retries; a
 * live block on a terminal, else a line per finished stage and a status line a minute.
 * @module
 */

/** The most unfinished stages the live block shows a line for (the others are counted on one line). */
export const LIVE_STAGE_LINES = 6;

/** Seconds as `45s`, `3m05s` or `2h07m`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "?";
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

function formatRate(perSecond: number): string {
  return perSecond >= 1 ? `${perSecond.toFixed(1)}/s` : `${(perSecond * 60).toFixed(1)}/min`;
}

export interface TickInfo {
  failed?: boolean;
  /** A provider unit a check-only run did not send (not a failure: counted apart). */
  notSent?: boolean;
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

export interface StageFigures {
  stage: string;
  done: number;
  planned: number;
  elapsedSeconds: number | null;
  ratePerSecond: number | null;
  etaSeconds: number | null;
  failed: number;
  retries: number;
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
  readonly #start: number;
  readonly #columns: () => number;
  readonly #write: (text: string) => void;
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastDraw = 0;
  /** Lines of the live block now on the terminal (0: none). */
  #drawn = 0;

  /** `quiet` silences everything; `live` defaults to stderr being a terminal; the rest are for tests. */
  constructor(
    title: string,
    options: {
      quiet?: boolean;
      live?: boolean;
      names?: (stage: string) => string;
      now?: () => number;
      intervalMs?: number;
      columns?: number;
      write?: (text: string) => void;
    } = {},
  ) {
    this.#title = title;
    this.#name = options.names ?? ((stage) => stage);
    this.#quiet = options.quiet ?? false;
    this.#live = options.live ?? Deno.stderr.isTerminal();
    this.#now = options.now ?? (() => performance.now());
    this.#intervalMs = options.intervalMs ?? 60_000;
    this.#start = this.#now();
    this.#columns = options.columns !== undefined ? () => options.columns! : terminalColumns;
    const encoder = new TextEncoder();
    this.#write = options.write ?? ((text) => Deno.stderr.writeSync(encoder.encode(text)));
  }

  plan(stage: string, count: number): void {
    const s = this.#state(stage);
    s.planned += count;
    if (!this.#quiet && this.#timer === undefined && !this.#allDone()) {
      // Plain: the status lines every minute; live: the block redrawn each second, so elapsed time moves.
      const timer = this.#live
        ? setInterval(() => this.#draw(), 1000)
        : setInterval(() => this.statusLines().forEach((line) => console.error(line)), this.#intervalMs);
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
    return this.#allFigures()
      .filter((f) => f.done < f.planned)
      .map((f) => `${this.#title}: ${this.#line(f)}`);
  }

  /** Prints a message on its own line (above the live block, which is drawn again under it). */
  note(message: string): void {
    if (this.#quiet) return;
    if (!this.#live) {
      console.error(message);
      return;
    }
    this.#write(`${this.#clear()}${message}\n`);
    if (this.#stages.size > 0) this.#draw();
  }

  /** Ends the live block (live, one `finished in …` or `stopped after …` line stays) and the status lines. */
  end(): void {
    this.#stopTimer();
    if (this.#quiet || !this.#live) return;
    this.#write(`${this.#clear()}${this.finishLine()}\n`);
  }

  finishLine(): string {
    const figures = this.#allFigures();
    const finished = figures.filter((f) => f.done >= f.planned).length;
    const elapsed = formatDuration((this.#now() - this.#start) / 1000);
    const parts = finished === figures.length
      ? [`finished in ${elapsed}`, `${figures.length} stage${figures.length === 1 ? "" : "s"}`]
      : [`stopped after ${elapsed}`, `${finished}/${figures.length} stages done`];
    const failed = figures.reduce((n, f) => n + f.failed, 0);
    const retries = figures.reduce((n, f) => n + f.retries, 0);
    if (failed > 0) parts.push(`${failed} failed`);
    if (retries > 0) parts.push(`${retries} retries`);
    return `${this.#title}: ${parts.join(" · ")}`;
  }

  /** The live block's lines, each cut to `columns − 1` characters: a header, then per unfinished stage. */
  liveLines(columns: number): string[] {
    const figures = this.#allFigures();
    const open = figures.filter((f) => f.done < f.planned);
    const etas = open.map((f) => f.etaSeconds).filter((e): e is number => e !== null);
    const left = open.length === 0
      ? []
      : [etas.length > 0 ? `about ${formatDuration(Math.max(...etas))} left` : "estimating time left"];
    const elapsed = formatDuration((this.#now() - this.#start) / 1000);
    const head = [
      `${elapsed} elapsed`,
      ...left,
      `${figures.length - open.length}/${figures.length} stages done`,
    ];
    const shown = open.slice(0, LIVE_STAGE_LINES);
    const width = Math.max(...shown.map((f) => this.#name(f.stage).length), 0);
    const lines = [
      `${this.#title}: ${head.join(" · ")}`,
      ...shown.map((f) => `  ${this.#name(f.stage).padEnd(width)} ${this.#stageParts(f).join(" · ")}`),
      ...(open.length > shown.length ? [`  … ${open.length - shown.length} more stage(s) waiting`] : []),
    ];
    const limit = Math.max(20, columns - 1);
    return lines.map((line) => (line.length <= limit ? line : `${line.slice(0, limit - 1)}…`));
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

  /** `answer 120/480 · 2m05s · 1.0/s · ETA 6m00s · 2 failed · 3 retries` (`… 480/480 done · …` at the end) */
  #line(f: StageFigures): string {
    const head = `${this.#name(f.stage)} ${f.done}/${f.planned}${f.done >= f.planned ? " done" : ""}`;
    const elapsed = f.elapsedSeconds === null ? [] : [formatDuration(f.elapsedSeconds)];
    return [head, ...elapsed, ...this.#stageParts(f).slice(1)].join(" · ");
  }

  #stageParts(f: StageFigures): string[] {
    const parts = [`${f.done}/${f.planned}`];
    if (f.ratePerSecond !== null) parts.push(formatRate(f.ratePerSecond));
    if (f.done < f.planned) parts.push(`ETA ${f.etaSeconds === null ? "?" : formatDuration(f.etaSeconds)}`);
    if (f.failed > 0) parts.push(`${f.failed} failed`);
    if (f.notSent > 0) parts.push(`${f.notSent} not sent (check-only)`);
    if (f.retries > 0) parts.push(`${f.retries} retries`);
    return parts;
  }

  #allFigures(): StageFigures[] {
    return [...this.#stages.keys()].map((stage) => this.figures(stage)!);
  }

  /** What takes the live block off the terminal: back to its first line, then clear to the screen's end. */
  #clear(): string {
    const up = this.#drawn > 1 ? `\x1b[${this.#drawn - 1}A` : "";
    const text = this.#drawn > 0 ? `\r${up}\x1b[J` : "";
    this.#drawn = 0;
    return text;
  }

  #draw(): void {
    if (this.#quiet || !this.#live) return;
    const lines = this.liveLines(this.#columns());
    this.#write(`${this.#clear()}${lines.join("\n")}`);
    this.#drawn = lines.length;
  }
}

/** The terminal's width (160 when stderr is not a terminal or its size cannot be read). */
function terminalColumns(): number {
  try {
    return Deno.stderr.isTerminal() ? Deno.consoleSize().columns : 160;
  } catch {
    return 160;
  }
}
