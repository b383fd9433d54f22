import assert from "node:assert/strict";
import { type EvidenceUnit, inSourceOrder, joinUnits } from "../src/methods/evidence_unit.ts";
import { selectRankedUnits } from "../src/methods/registry.ts";
import { fitCountInOrder } from "../src/tokens/budget.ts";
import type { TokenCounter } from "../src/tokens/types.ts";

const unit = (id: string, position: number): EvidenceUnit => ({ id, position, text: `text of ${id}` });

Deno.test("inSourceOrder keeps the named units in ascending position, whatever order units and ids come in", () => {
  const ordered = [unit("a", 0), unit("b", 1), unit("c", 2), unit("d", 3)];
  const ids = (units: EvidenceUnit[]) => units.map((u) => u.id);
  assert.deepEqual(ids(inSourceOrder(ordered, ["d", "b", "x", "b"])), ["b", "d"]);
  const shuffled = [ordered[2], ordered[0], ordered[3], ordered[1]];
  assert.deepEqual(ids(inSourceOrder(shuffled, ["d", "a", "c"])), ["a", "c", "d"]);
  // Equal positions keep the units' own order (the sort is stable), sorted or not.
  const ties = [unit("p", 1), unit("q", 0), unit("r", 1), unit("s", 0)];
  assert.deepEqual(ids(inSourceOrder(ties, ["p", "q", "r", "s"])), ["q", "s", "p", "r"]);
  assert.deepEqual(ids(inSourceOrder([unit("r", 1), unit("p", 1)], ["p", "r"])), ["r", "p"]);
  // A new array: the caller's units are never reordered.
  const kept = inSourceOrder(shuffled, ["a", "b", "c", "d"]);
  assert.notEqual(kept, shuffled);
  assert.deepEqual(ids(shuffled), ["c", "a", "d", "b"]);
  assert.equal(joinUnits(kept.slice(0, 2)), "text of a\n\ntext of b");
});

Deno.test("the ranked selection keeps what inSourceOrder of each ranked prefix keeps, over generated rankings", () => {
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  // A counter whose prompt count is its one message's length: the fit's choices follow the kept texts.
  const counter = {
    name: "length",
    hash: "length",
    countMessages: (messages: { content: string | null }[]) => messages[0].content?.length ?? 0,
    countText: (text: string) => text.length,
  } as unknown as TokenCounter;
  for (let round = 0; round < 2000; round++) {
    // Units out of position order, equal positions and repeated ids; rankings with repeats and gaps.
    const units = Array.from({ length: 1 + next(9) }, (_, i) => unit(`u${next(8)}`, next(6) + (i % 2)));
    const ids = units.map((u) => u.id);
    const order = Array.from({ length: next(12) }, () => ids[next(ids.length)]);
    const build = (kept: EvidenceUnit[]) => [{ role: "user" as const, content: joinUnits(kept) }];
    const limit = next(12 * 9);
    const fresh = fitCountInOrder(order, (chosen) => joinUnits(inSourceOrder(units, chosen)).length, limit);
    const selected = selectRankedUnits(counter, units, order, build, limit);
    assert.deepEqual(selected.kept, inSourceOrder(units, fresh.chosen), `round ${round}`);
    assert.equal(selected.tokens, fresh.tokens);
  }
  assert.throws(() => selectRankedUnits(counter, [unit("a", 0)], ["a", "b"], () => [], 5), /unknown unit b/);
});
