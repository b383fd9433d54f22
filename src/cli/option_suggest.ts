/**
 * The option a person most likely meant when they typed an unknown one (`--ouput` → `--output`).
 * @module
 */

/** The Damerau-Levenshtein (optimal string alignment) distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/** The known option nearest to `typed` within a slip (1–3 edits by length) or that it prefixes, else null. */
export function nearestOption(typed: string, known: readonly string[]): string | null {
  const name = typed.replace(/^-+/, "").split("=")[0];
  if (name === "") return null;
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const option of known) {
    const distance = editDistance(name.toLowerCase(), option.toLowerCase());
    if (distance < bestDistance) {
      best = option;
      bestDistance = distance;
    }
  }
  if (best !== null && bestDistance <= limit) return best;
  const prefixed = known.filter((option) => option.startsWith(name));
  return prefixed.length === 1 ? prefixed[0] : null;
}

/**
 * `; did you mean 'WORD'?` for the known command word nearest to `typed`, or "" when none is near.
 * @example
 * ```ts
 * didYouMean("hotpt", ["hotpot", "sweep"]); // "; did you mean 'hotpot'?"
 * ```
 */
export function didYouMean(typed: string, known: readonly string[]): string {
  if (typed.startsWith("-")) return "";
  const nearest = nearestOption(typed, known);
  return nearest === null ? "" : `; did you mean '${nearest}'?`;
}
