/**
 * Rendering a chat template under a work bound. A `tokenizer_config.json` is input, and its template is a
 * program: `{% for i in range(10**9) %}`, nested loops or a string doubled in a loop would hang the process or
 * exhaust its memory. Rendering here goes through `@huggingface/jinja`'s own interpreter, with
 * - a step budget: every evaluated node counts one step, every element `range()` creates counts one step;
 * - a size bound: no string value may grow beyond a limit tied to the size of the input;
 * - a bounded `range()` that refuses to build more elements than the remaining budget.
 * Going over a bound throws {@link TemplateLimitError}; the render is abandoned, never half-used.
 *
 * @module
 */
import { Environment, Interpreter, type Template } from "@huggingface/jinja";
import { UsageError } from "../errors.ts";

/**
 * The template did more work, or built a larger string, than its bound allows. The template comes from the
 * tokenizer directory, so this is bad input (exit code 2).
 */
export class TemplateLimitError extends UsageError {
  /** Creates the error; the message says which bound was exceeded. */
  constructor(message: string) {
    super(message);
    this.name = "TemplateLimitError";
  }
}

/** The bounds of one render. */
export interface RenderBounds {
  /** Evaluation steps at most. */
  steps: number;
  /** Characters of any one string value at most (read only for a string longer than `charsFloor`). */
  readonly chars: number;
  /** A number known not to exceed `chars`: no string of at most this many characters is checked further. */
  charsFloor?: number;
}

/** The least bound on a string's characters {@link renderBounds} gives. */
export const BASE_CHARS = 16 * 1024 * 1024;

/**
 * The bounds for rendering `items` messages whose text totals `inputChars` characters: generous for any real
 * chat template (a few hundred steps per message), small enough to stop a looping one within seconds.
 * `inputChars` may be given as a function: it is then called only if a string grows past {@link BASE_CHARS}
 * (measuring the input costs as much as a tenth of a render), with the same bound as a result.
 */
export function renderBounds(items: number, inputChars: number | (() => number)): RenderBounds {
  const steps = 2_000_000 + 20_000 * items;
  if (typeof inputChars === "number") return { steps, chars: BASE_CHARS + 8 * inputChars };
  let chars: number | undefined;
  return {
    steps,
    charsFloor: BASE_CHARS,
    get chars() {
      return chars ??= BASE_CHARS + 8 * inputChars();
    },
  };
}

type Evaluate = Interpreter["evaluate"];

/** `strftime_now` as `@huggingface/jinja` defines it (the subset of codes it supports). */
function strftimeNow(format: string): string {
  const date = new Date();
  const pad2 = (n: number) => (n < 10 ? "0" + n : String(n));
  return String(format).replace(/%[YmdbBHM%]/g, (token) => {
    switch (token) {
      case "%Y":
        return String(date.getFullYear());
      case "%m":
        return pad2(date.getMonth() + 1);
      case "%d":
        return pad2(date.getDate());
      case "%b":
        return new Intl.DateTimeFormat(undefined, { month: "short" }).format(date);
      case "%B":
        return new Intl.DateTimeFormat(undefined, { month: "long" }).format(date);
      case "%H":
        return pad2(date.getHours());
      case "%M":
        return pad2(date.getMinutes());
      default:
        return "%";
    }
  });
}

/**
 * Renders a parsed template with `items` (as `Template.render` would: the same globals, then the items) under
 * `bounds`. Throws {@link TemplateLimitError} when a bound is exceeded; template errors propagate unchanged.
 */
export function renderBounded(
  template: Template,
  items: Record<string, unknown>,
  bounds: RenderBounds,
): string {
  let steps = 0;
  const spend = (n: number) => {
    steps += n;
    if (steps > bounds.steps) {
      throw new TemplateLimitError(
        `the chat template did not finish within ${bounds.steps} evaluation steps (a loop that never ends?)`,
      );
    }
  };
  const range = (start: number, stop?: number, step = 1): number[] => {
    const [from, to] = stop === undefined ? [0, start] : [start, stop];
    if (![from, to, step].every(Number.isInteger)) throw new Error("range() expects integers");
    if (step === 0) throw new Error("range() step must not be zero");
    const length = Math.max(0, Math.ceil((to - from) / step));
    if (!Number.isFinite(length)) {
      throw new TemplateLimitError("the chat template called range() without an end");
    }
    spend(length);
    return Array.from({ length }, (_, i) => from + i * step);
  };
  const floor = bounds.charsFloor ?? 0;
  const env = new Environment();
  const globals: Record<string, unknown> = {
    false: false,
    true: true,
    none: null,
    raise_exception: (message: unknown) => {
      throw new Error(String(message));
    },
    range,
    strftime_now: strftimeNow,
    True: true,
    False: false,
    None: null,
  };
  for (const [key, value] of Object.entries({ ...globals, ...items })) env.set(key, value);
  const interpreter = new Interpreter(env);
  const evaluate: Evaluate = interpreter.evaluate;
  const maxSteps = bounds.steps;
  // Called for every node: the step is counted inline (`spend` is for `range`'s elements).
  interpreter.evaluate = function (statement, environment) {
    if (++steps > maxSteps) spend(0);
    const value = evaluate.call(this, statement, environment);
    const inner = value.value;
    if (typeof inner === "string" && inner.length > floor && inner.length > bounds.chars) {
      throw new TemplateLimitError(
        `the chat template built a string of ${inner.length} characters, more than the ${bounds.chars} allowed`,
      );
    }
    return value;
  };
  const result = interpreter.run(template.parsed);
  return String(result.value);
}
