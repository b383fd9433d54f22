/**
 * Token budgets of an engines run: `--budget 10%,25%,50%` (shares of the transcript's tokens) or absolute
 * token counts (`--budget 2000,4000`), mixed freely, comma-separated; and host context lengths,
 * `--context-length 8000,16000` (each engine is told the window and decides what to keep; see CompressOptions).
 * Every engine is measured at each.
 *
 * @module
 */
import { z } from "zod";

/** Most budgets one run may ask for. */
export const MAX_BUDGETS = 20;
/** Largest absolute budget (tokens). */
export const MAX_BUDGET_TOKENS = 100_000_000;

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
export function parseBudget(text: string): BudgetSpec | string {
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

/** Zod schema of `--budget LIST`: distinct budgets, at most {@link MAX_BUDGETS}. */
export const budgetListOption = z.string().transform((text, ctx) => {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.some((p) => p.length === 0)) {
    ctx.addIssue({ code: "custom", message: "an empty budget in the list" });
    return z.NEVER;
  }
  if (parts.length > MAX_BUDGETS) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_BUDGETS} budgets` });
    return z.NEVER;
  }
  const out: BudgetSpec[] = [];
  for (const part of parts) {
    const parsed = parseBudget(part);
    if (typeof parsed === "string") {
      ctx.addIssue({ code: "custom", message: parsed });
      return z.NEVER;
    }
    if (out.some((b) => b.label === parsed.label)) {
      ctx.addIssue({ code: "custom", message: `${parsed.label} is given twice` });
      return z.NEVER;
    }
    out.push(parsed);
  }
  return out;
});

/** Zod schema of `--context-length LIST`: distinct whole token counts, at most {@link MAX_BUDGETS}. */
export const contextLengthListOption = z.string().transform((text, ctx) => {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length > MAX_BUDGETS) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_BUDGETS} context lengths` });
    return z.NEVER;
  }
  const out: ContextLengthSpec[] = [];
  for (const part of parts) {
    const tokens = /^[0-9]{1,9}$/.test(part) ? Number(part) : NaN;
    if (!(tokens >= 1 && tokens <= MAX_BUDGET_TOKENS)) {
      ctx.addIssue({
        code: "custom",
        message: `${
          JSON.stringify(part)
        }: a context length must be a whole number in 1..${MAX_BUDGET_TOKENS}`,
      });
      return z.NEVER;
    }
    if (out.some((b) => b.tokens === tokens)) {
      ctx.addIssue({ code: "custom", message: `${tokens} is given twice` });
      return z.NEVER;
    }
    out.push({ kind: "context", tokens, label: `ctx ${tokens}` });
  }
  return out;
});
