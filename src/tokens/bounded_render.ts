/**
 * Rendering a chat template (a program from the input) under a step budget and a bound on any string's size;
 * going over throws {@link TemplateLimitError}.
 * @module
 */
import { Environment, Interpreter, type Template } from "@huggingface/jinja";
import { UsageError } from "../errors.ts";

/** The template did more work, or built a larger string, than its bound allows (bad input: exit 2). */
export class TemplateLimitError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = "TemplateLimitError";
  }
}

export interface RenderBounds {
  steps: number;
  /** Characters of any one string value at most (checked only past `charsFloor`). */
  readonly chars: number;
  /** A number known not to exceed `chars`. */
  charsFloor?: number;
}

/** The least bound on a string's characters {@link renderBounds} gives. */
export const BASE_CHARS = 16 * 1024 * 1024;

/**
 * The bounds for rendering `items` messages of `inputChars` characters: generous for real templates, small
 * enough to stop a looping one in seconds (`inputChars` as a function is called only past {@link BASE_CHARS}).
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
  const codes: Record<string, () => string> = {
    "%Y": () => String(date.getFullYear()),
    "%m": () => pad2(date.getMonth() + 1),
    "%d": () => pad2(date.getDate()),
    "%b": () => new Intl.DateTimeFormat(undefined, { month: "short" }).format(date),
    "%B": () => new Intl.DateTimeFormat(undefined, { month: "long" }).format(date),
    "%H": () => pad2(date.getHours()),
    "%M": () => pad2(date.getMinutes()),
  };
  return String(format).replace(/%[YmdbBHM%]/g, (token) => codes[token]?.() ?? "%");
}

/** Renders a parsed template with `items` under `bounds` (as `Template.render` would); throws on a bound. */
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
