/**
 * Progress on stderr: a live single line when stderr is a terminal, a plain line per finished stage otherwise
 * (so logs stay readable in CI). Never writes to stdout, which carries results.
 *
 * @module
 */

/** Counts planned and finished work per stage (stage names as the executor runs them). */
export class Progress {
  readonly #title: string;
  readonly #planned = new Map<string, number>();
  readonly #done = new Map<string, number>();
  readonly #live: boolean;
  readonly #quiet: boolean;
  readonly #name: (stage: string) => string;
  #lastDraw = 0;

  /**
   * `quiet` silences everything (tests); `live` defaults to whether stderr is a terminal; `names` gives the
   * display name of a stage (default: the stage's own name).
   */
  constructor(
    title: string,
    options: { quiet?: boolean; live?: boolean; names?: (stage: string) => string } = {},
  ) {
    this.#title = title;
    this.#name = options.names ?? ((stage) => stage);
    this.#quiet = options.quiet ?? false;
    this.#live = options.live ?? Deno.stderr.isTerminal();
  }

  /** Announces `count` more units of work for `stage`. */
  plan(stage: string, count: number): void {
    this.#planned.set(stage, (this.#planned.get(stage) ?? 0) + count);
    if (!this.#done.has(stage)) this.#done.set(stage, 0);
  }

  /** Marks one unit of `stage` finished. */
  tick(stage: string): void {
    const done = (this.#done.get(stage) ?? 0) + 1;
    this.#done.set(stage, done);
    if (this.#quiet) return;
    const planned = this.#planned.get(stage);
    if (this.#live) {
      const now = performance.now();
      if (now - this.#lastDraw > 100 || done === planned) {
        this.#lastDraw = now;
        this.#draw();
      }
    } else if (planned !== undefined && done === planned) {
      console.error(`${this.#title}: ${this.#name(stage)} ${done}/${planned} done`);
    }
  }

  /** Prints a message on its own line. */
  note(message: string): void {
    if (this.#quiet) return;
    if (this.#live) Deno.stderr.writeSync(new TextEncoder().encode("\r\x1b[2K"));
    console.error(message);
  }

  /** Ends the live line. */
  end(): void {
    if (this.#quiet || !this.#live) return;
    this.#draw();
    Deno.stderr.writeSync(new TextEncoder().encode("\n"));
  }

  #draw(): void {
    const parts = [...this.#planned].map(([stage, planned]) =>
      `${this.#name(stage)} ${this.#done.get(stage) ?? 0}/${planned}`
    );
    const line = `${this.#title}: ${parts.join(" · ")}`;
    Deno.stderr.writeSync(new TextEncoder().encode(`\r\x1b[2K${line.slice(0, 160)}`));
  }
}
