/**
 * Text forms of intervals and p-values in the reports: `80.0 [63.3, 93.3]`, `+3.3 [-5.0, 10.0]`, `< 0.001`;
 * and the "not a finding" mark of a paired comparison whose A or B side was mostly invalid (invalid counts zero).
 * @module
 */
import type { Interval } from "./bootstrap.ts";
import type { PairedDifference } from "./paired.ts";
import type { Cell } from "../core/markdown_table.ts";

const points = (x: number) => (Number.isFinite(x) ? (100 * x).toFixed(1) : "n/a");
const signed = (x: number) => (Number.isFinite(x) ? `${x > 0 ? "+" : ""}${(100 * x).toFixed(1)}` : "n/a");

/** An integer as `toLocaleString("en-US")` writes it, without loading the locale data (costs milliseconds). */
export function groupedInteger(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** A share (0–1) in percent with its interval: `80.0 [63.3, 93.3]`. */
export function formatInterval(ci: Pick<Interval, "mean" | "lo" | "hi">): string {
  return `${points(ci.mean)} [${points(ci.lo)}, ${points(ci.hi)}]`;
}

/** A difference of shares in percentage points with its interval: `+3.3 [-5.0, 10.0]`. */
export function formatDifference(d: { mean: number; lo: number; hi: number }): string {
  return `${signed(d.mean)} [${signed(d.lo)}, ${signed(d.hi)}]`;
}

/** A value (not a share) with its interval, `digits` decimals: `812 [790, 840]`. */
export function formatPlainInterval(ci: Pick<Interval, "mean" | "lo" | "hi">, digits = 0): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
  return `${f(ci.mean)} [${f(ci.lo)}, ${f(ci.hi)}]`;
}

/** The columns every paired-differences table starts with (its p-value's next). */
export const PAIRED_HEADERS = ["B vs A", "metric", "pairs", "A", "B", "B − A (95% CI)", "p (sign-flip)"];

/** A paired row's cells before its p-value: `B vs A`, the metric's label, pairs, both means, B − A (95% CI). */
export function pairedCells(p: PairedDifference & { a: string; b: string }, label: string): Cell[] {
  const diff = formatDifference({ mean: p.mean_diff, lo: p.lo, hi: p.hi });
  return [`${p.b} vs ${p.a}`, label, p.n, points(p.mean_a), points(p.mean_b), diff];
}

/** A p-value: `1`, `0.0312`, `< 0.001`. */
export function formatP(p: number): string {
  if (!Number.isFinite(p)) return "n/a";
  if (p >= 1) return "1";
  if (p < 0.001) return "< 0.001";
  return String(Number(p.toPrecision(3)));
}

/** Percentage points with one decimal, or n/a. */
export const formatPoints: (x: number) => string = points;

/** A copy of a statistics value fit for JSON export: non-finite numbers (an empty sample's NaN) become null. */
export function finiteOrNull<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? null : v)),
  );
}

/** More than this share of a side's conditions invalid makes its comparisons "not a finding". */
export const MOSTLY_INVALID_SHARE = 0.5;

/** The note of comparing `a` with `b` (`noun`: what the conditions are); empty when neither is mostly invalid. */
export function mostlyInvalidNote(
  invalidShare: (side: string) => number,
  a: string,
  b: string,
  noun: string,
): string {
  const sides = [a, b].filter((side) => invalidShare(side) > MOSTLY_INVALID_SHARE);
  if (sides.length === 0) return "";
  const which = sides.map((side) => `${side} ${Math.round(100 * invalidShare(side))}%`).join(", ");
  return `not a finding: mostly invalid ${noun} (${which} invalid)`;
}
