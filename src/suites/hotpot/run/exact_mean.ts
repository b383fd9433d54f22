/**
 * Exact means for verdicts: a method's EM (answers averaged within a question, then questions equally) as a
 * rational, so "within 5 points" holds at exactly 5 points.
 *
 * @module
 */

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** An exact rational number (normalized: positive denominator, lowest terms). */
export class Rational {
  readonly num: bigint;
  readonly den: bigint;

  /** `num / den`; a zero denominator is refused. */
  constructor(num: bigint, den: bigint = 1n) {
    if (den === 0n) throw new RangeError("Rational: zero denominator");
    const sign = den < 0n ? -1n : 1n;
    const g = gcd(num, den) || 1n;
    this.num = (sign * num) / g;
    this.den = (sign * den) / g;
  }

  /** Parses `p/q` or `p` (integers). */
  static parse(text: string): Rational {
    const match = /^(-?\d+)(?:\/(\d+))?$/.exec(text);
    if (!match) throw new SyntaxError(`not a rational: ${JSON.stringify(text)}`);
    return new Rational(BigInt(match[1]), BigInt(match[2] ?? "1"));
  }

  /** An integer as a rational; refuses a non-integer. */
  static ofInteger(value: number): Rational {
    if (!Number.isSafeInteger(value)) throw new RangeError(`Rational.ofInteger: ${value} is not an integer`);
    return new Rational(BigInt(value));
  }

  add(other: Rational): Rational {
    return new Rational(this.num * other.den + other.num * this.den, this.den * other.den);
  }

  sub(other: Rational): Rational {
    return new Rational(this.num * other.den - other.num * this.den, this.den * other.den);
  }

  divInt(n: number): Rational {
    return new Rational(this.num, this.den * BigInt(n));
  }

  /** −1, 0 or 1 as this is less than, equal to or greater than `other`. */
  compare(other: Rational): -1 | 0 | 1 {
    const d = this.num * other.den - other.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }

  /** The nearest double (for display only). */
  toNumber(): number {
    return Number(this.num) / Number(this.den);
  }

  toString(): string {
    return this.den === 1n ? `${this.num}` : `${this.num}/${this.den}`;
  }
}

/**
 * The exact mean over questions of the per-question mean of an integer value per row (e.g. EM 0/1), with
 * questions weighted equally; 0 without rows.
 */
export function exactQuestionMean<R extends { question_id: string }>(
  rows: readonly R[],
  pick: (row: R) => number,
): Rational {
  const byQuestion = new Map<string, { sum: Rational; count: number }>();
  for (const row of rows) {
    const entry = byQuestion.get(row.question_id) ?? { sum: new Rational(0n), count: 0 };
    entry.sum = entry.sum.add(Rational.ofInteger(pick(row)));
    entry.count++;
    byQuestion.set(row.question_id, entry);
  }
  if (byQuestion.size === 0) return new Rational(0n);
  let total = new Rational(0n);
  for (const { sum, count } of byQuestion.values()) total = total.add(sum.divInt(count));
  return total.divInt(byQuestion.size);
}
