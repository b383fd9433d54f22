import assert from "node:assert/strict";
import { type EvidenceUnit, inSourceOrder, joinUnits } from "../src/methods/evidence_unit.ts";

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
