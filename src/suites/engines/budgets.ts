/**
 * Token budgets of an engines run: `--budget 10%,25%,4000` (shares of the transcript's tokens or token counts)
 * and host context lengths, `--context-length 8000,16000` (each engine is told the window).
 * @module
 */
import { z } from "zod";

const MAX_BUDGETS = 20;
const MAX_BUDGET_TOKENS = 100_000_000;

/** One budget as asked for: a share of the input tokens, or a token count. */
export type BudgetSpec =
  | { kind: "share"; share: number; label: string }
  | { kind: "tokens"; tokens: number; label: string }
  | ContextLengthSpec;

/** The host's context window (`--context-length`): labelled `ctx N`. */
export type ContextLengthSpec = { kind: "context"; tokens: number; label: string };

/** The default budget: 25 % of the input tokens. */
export const DEFAULT_BUDGET: BudgetSpec = { kind: "share", share: 0.25, label: "25%" };

/** The budget in tokens for an input of `inputTokens` (a share is rounded down, at least 1). */
export function budgetTokens(spec: BudgetSpec, inputTokens: number): number {
  return spec.kind === "share" ? Math.max(1, Math.floor(inputTokens * spec.share)) : spec.tokens;
}

/** Parses one budget: `25%` (0 < share ≤ 100, up to two decimals) or a whole token count ≥ 1. */
function parseBudget(text: string): BudgetSpec | string {
  const t = text.trim();
  const pct = /^([0-9]{1,3}(?:\.[0-9]{1,2})?)%$/.exec(t);
  if (pct) {
    const value = Number(pct[1]);
    if (!(value > 0 && value <= 100)) return `${JSON.stringify(t)}: a share must be in (0%, 100%]`;
    return { kind: "share", share: value / 100, label: `${pct[1]}%` };
  }
  if (/^[0-9]+$/.test(t)) {
    const tokens = Number(t);
    if (tokens < 1 || tokens > MAX_BUDGET_TOKENS) {
      return `${JSON.stringify(t)}: a token budget must be in 1..${MAX_BUDGET_TOKENS}`;
    }
    return { kind: "tokens", tokens, label: String(tokens) };
  }
  return `${JSON.stringify(t)} is neither a share like 25% nor a token count`;
}

/** A comma-separated list option: at most {@link MAX_BUDGETS} distinct items (`key` says which are equal). */
function listOption<T>(
  noun: string,
  parse: (part: string) => T | string,
  key: (item: T) => string,
  empty = "",
) {
  return z.string().transform((text, ctx) => {
    const fail = (message: string) => {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    };
    const parts = text.split(",").map((p) => p.trim());
    if (empty !== "" && parts.some((p) => p.length === 0)) return fail(empty);
    if (parts.length > MAX_BUDGETS) return fail(`at most ${MAX_BUDGETS} ${noun}`);
    const out: T[] = [];
    for (const part of parts) {
      const parsed = parse(part);
      if (typeof parsed === "string") return fail(parsed);
      if (out.some((b) => key(b) === key(parsed))) return fail(`${key(parsed)} is given twice`);
      out.push(parsed);
    }
    return out;
  });
}

/** Zod schema of `--budget LIST`. */
export const budgetListOption = listOption(
  "budgets",
  parseBudget,
  (b) => b.label,
  "an empty budget in the list",
);

/** Zod schema of `--context-length LIST`: whole token counts. */
export const contextLengthListOption = listOption("context lengths", (part): ContextLengthSpec | string => {
  const tokens = /^[0-9]{1,9}$/.test(part) ? Number(part) : NaN;
  if (!(tokens >= 1 && tokens <= MAX_BUDGET_TOKENS)) {
    return `${JSON.stringify(part)}: a context length must be a whole number in 1..${MAX_BUDGET_TOKENS}`;
  }
  return { kind: "context", tokens, label: `ctx ${tokens}` };
}, (b) => String(b.tokens));
