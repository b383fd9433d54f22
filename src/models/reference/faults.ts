/**
 * The reference server's seeded fault mode: `429=0.1,500=0.1,hang=0.05,first=1` gives each kind's rate (sum at
 * most 1; `first=N`: only the first N attempts fault). The fault is chosen by SHA-256 of
 * `seed:sha256(body)[:identity]:attempt` (the client's declared attempt and node key), so a logical request's
 * faults do not depend on order, concurrency or HTTP re-sends.
 * @module
 */
import { sha256Hex } from "../../store/hash.ts";
import { z } from "zod";

/** Every fault kind, in the order rates are laid out. */
export const FAULT_KINDS = ["429", "500", "hang", "drop", "malformed", "truncated", "schema"] as const;

export type FaultKind = typeof FAULT_KINDS[number];

const Rate = z.coerce.number().min(0, "a rate must be at least 0").max(1, "a rate must be at most 1");

const FaultSpecSchema = z.object({
  rates: z.partialRecord(z.enum(FAULT_KINDS), Rate),
  first: z.number().int().positive().optional(),
}).refine(
  (spec) => Object.values(spec.rates).reduce((sum: number, rate) => sum + (rate ?? 0), 0) <= 1 + 1e-9,
  { message: "the fault rates add up to more than 1" },
);

/** A parsed fault spec (`first`: only the first attempts of each distinct body can fault). */
export type FaultSpec = z.infer<typeof FaultSpecSchema>;

/** Parses a `--faults` spec; a RangeError names the offending pair or value. */
export function parseFaultSpec(text: string): FaultSpec {
  const rates: Record<string, unknown> = {};
  let first: number | undefined;
  for (const pair of text.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
    const match = /^([^=\s]+)\s*=\s*(\S+)$/.exec(pair);
    if (!match) throw new RangeError(`fault spec: expected kind=rate, got ${JSON.stringify(pair)}`);
    const [, kind, value] = match;
    if (kind === "first") {
      first = Number(value);
      continue;
    }
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new RangeError(
        `fault spec: unknown fault kind ${JSON.stringify(kind)} (known: ${FAULT_KINDS.join(", ")}, first)`,
      );
    }
    if (kind in rates) throw new RangeError(`fault spec: ${kind} given twice`);
    if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) {
      throw new RangeError(`fault spec: rate of ${kind} is not a number: ${JSON.stringify(value)}`);
    }
    rates[kind] = value;
  }
  const parsed = FaultSpecSchema.safeParse({ rates, ...(first !== undefined ? { first } : {}) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? `${issue.path[issue.path.length - 1].toString()}: ` : "";
    throw new RangeError(`fault spec ${JSON.stringify(text)}: ${where}${issue.message}`);
  }
  return parsed.data;
}

/** The fault for the `attempt`-th time (0-based) a body arrives, or undefined (`identity`: the node key). */
export function chooseFault(
  spec: FaultSpec,
  seed: number,
  bodyHash: string,
  attempt: number,
  identity?: string,
): FaultKind | undefined {
  if (spec.first !== undefined && attempt >= spec.first) return undefined;
  const digest = sha256Hex(
    identity === undefined ? `${seed}:${bodyHash}:${attempt}` : `${seed}:${bodyHash}:${identity}:${attempt}`,
  );
  const u = parseInt(digest.slice(0, 12), 16) / 2 ** 48;
  let edge = 0;
  for (const kind of FAULT_KINDS) {
    edge += spec.rates[kind] ?? 0;
    if (u < edge) return kind;
  }
  return undefined;
}
