import assert from "node:assert/strict";
import { join } from "node:path";
import {
  blobRelativePath,
  HELD_DESCRIPTORS_LIMIT,
  INLINE_SYNC_SLOW_MS,
  INLINE_SYNC_SLOW_RUN,
  SyncPlace,
} from "../src/store/blob_store.ts";
import { JournalWriter, readJournal } from "../src/store/journal.ts";
import { type Node, nodeKey } from "../src/store/manifest.ts";
import { RunDir } from "../src/store/run_dir.ts";
import { verifyRun } from "../src/store/verify.ts";
import { testHeader } from "./helpers/header.ts";
import { flipByte } from "./helpers/tree.ts";

const header = testHeader();

/**
 * How many descriptors this process holds open on files under `dir` (Linux: the link targets of /proc/PID/fd,
 * listed by `ls`, since Deno asks for --allow-all to read /proc itself). Counting only `dir`'s files keeps the
 * count exact while other test files, run in parallel in this process, open and close their own.
 */
function openUnder(dir: string): number {
  const { code, stdout } = new Deno.Command("ls", { args: ["-l", `/proc/${Deno.pid}/fd`] }).outputSync();
  // 1: a descriptor of another test closed while ls read its link (ours stay open while they are counted).
  assert.ok(code === 0 || code === 1, `ls -l /proc/PID/fd exited ${code}`);
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line.includes(` -> ${dir}/`)).length;
}

function node(i: number, out: string): Node {
  return {
    key: nodeKey("s", 1, { i }, {}),
    label: `s ${i}`,
    stage: "s",
    version: 1,
    params: { i },
    inputs: {},
    outputs: { out },
    requests: [],
    usage: { calls: 0, input_tokens: 0, output_tokens: 0 },
    started: "2026-01-01T00:00:00.000Z",
    finished: "2026-01-01T00:00:00.000Z",
    status: "ok",
  };
}

Deno.test("nodes recorded all at once are journaled in call order, chained, and the run verifies", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = await RunDir.create(join(dir, "r"), header);
    // Every append waits on the group commit under way, so the lines are written in batches.
    const called: string[] = [];
    await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const recorded = node(i, await run.store.putJson({ i }));
      called.push(recorded.label);
      await run.recordNode(recorded);
    }));
    await run.finish();
    const reading = await readJournal(join(dir, "r", "journal.jsonl"));
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(reading.nodes.map((n) => n.label), called);
    assert.equal(reading.nodes.length, 200);
    const report = await verifyRun(join(dir, "r"));
    assert.deepEqual(report.problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("journal lines keep the order they were asked for, even when their blobs are synced in another order", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "journal.jsonl");
    const journal = await JournalWriter.create(path, { ...header, sources: {} });
    const releases: (() => void)[] = [];
    const appends = Array.from({ length: 5 }, (_, i) => {
      const ready = new Promise<void>((resolve) => releases.push(resolve));
      return journal.appendNode(node(i, "a".repeat(64)), ready);
    });
    for (const release of releases.reverse()) {
      release();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(appends);
    await journal.close();
    const reading = await readJournal(path);
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(reading.nodes.map((n) => n.label), ["s 0", "s 1", "s 2", "s 3", "s 4"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an append whose blobs failed to sync is refused, and no line of its batch is written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "journal.jsonl");
    const journal = await JournalWriter.create(path, { ...header, sources: {} });
    await journal.appendNode(node(0, "a".repeat(64)));
    await assert.rejects(
      () => journal.appendNode(node(1, "a".repeat(64)), Promise.reject(new Error("EIO"))),
      /EIO/,
    );
    await journal.appendNode(node(2, "a".repeat(64)));
    await journal.close();
    const reading = await readJournal(path);
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(reading.nodes.map((n) => n.label), ["s 0", "s 2"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an append that is not I-JSON is refused alone; the appends around it land and chain", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "journal.jsonl");
    const journal = await JournalWriter.create(path, { ...header, sources: {} });
    const hash = "a".repeat(64);
    const bad = { ...node(1, hash), params: { x: Number.NaN } };
    const results = await Promise.allSettled([
      journal.appendNode(node(0, hash)),
      journal.appendNode(bad),
      journal.appendNode(node(2, hash)),
    ]);
    await journal.close();
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "fulfilled"]);
    const reading = await readJournal(path);
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(reading.nodes.map((n) => n.label), ["s 0", "s 2"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resuming removes a blob no journal line names (cut short before its sync); writing it again succeeds", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "r");
    const first = await RunDir.create(path, header);
    const kept = await first.store.putJson({ kept: true });
    await first.recordNode(node(0, kept));
    const orphan = await first.store.putJson({ orphan: true }); // written, never journaled
    await first.abandon();
    assert.equal(openUnder(path), 0); // the orphan's descriptor, kept for a sync, is closed
    await flipByte(join(path, blobRelativePath(orphan))); // what a power cut before the sync may leave

    const run = await RunDir.resume(path);
    await assert.rejects(() => Deno.stat(join(path, blobRelativePath(orphan))), Deno.errors.NotFound);
    assert.equal(await run.store.getText(kept), '{"kept":true}');
    assert.equal(await run.store.putJson({ orphan: true }), orphan);
    await run.recordNode(node(1, orphan));
    await run.finish();
    assert.deepEqual((await verifyRun(path)).problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a run's blobs past the descriptors kept open for their fsync are synced all the same; none is left open", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "r");
    const run = await RunDir.create(path, header);
    const count = HELD_DESCRIPTORS_LIMIT + 40;
    const outputs: Record<string, string> = {};
    for (let i = 0; i < count; i++) outputs[`o${i}`] = await run.store.putJson({ i });
    assert.ok(
      openUnder(path) >= HELD_DESCRIPTORS_LIMIT,
      "descriptors are kept for the sync (the count sees them)",
    );
    await run.recordNode({ ...node(0, outputs.o0), outputs });
    // Written after the last sync and never journaled: closed at the seal, then removed.
    const orphan = await run.store.putJson({ orphan: true });
    await run.finish();
    assert.equal(openUnder(path), 0);
    await assert.rejects(() => Deno.stat(join(path, blobRelativePath(orphan))), Deno.errors.NotFound);
    const report = await verifyRun(path);
    assert.deepEqual(report.problems, []);
    const reading = await readJournal(join(path, "journal.jsonl"));
    assert.equal(Object.keys(reading.nodes[0].outputs).length, count);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fsyncs stay in place through slow ones short of a run, and leave for the thread pool after a run", () => {
  const slow = INLINE_SYNC_SLOW_MS * 10;
  const fast = INLINE_SYNC_SLOW_MS / 10;
  const place = new SyncPlace();
  for (let round = 0; round < 3; round++) {
    for (let i = 1; i < INLINE_SYNC_SLOW_RUN; i++) place.took(slow); // preempted now and then
    place.took(fast);
  }
  place.took(INLINE_SYNC_SLOW_MS); // at the limit is not slow
  assert.equal(place.inPlace, true);
  for (let i = 1; i < INLINE_SYNC_SLOW_RUN; i++) place.took(slow);
  assert.equal(place.inPlace, true);
  place.took(slow); // a disk: every one slow
  assert.equal(place.inPlace, false);
  place.took(fast);
  assert.equal(place.inPlace, false, "a store that left stays with the thread pool");
});

Deno.test("a blob gone before its fsync fails the sync naming it; the others are synced and none is left open", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "r");
    const run = await RunDir.create(path, header);
    // Past the descriptors kept open, a blob is opened again by its path for its fsync.
    const hashes: string[] = [];
    for (let i = 0; i < HELD_DESCRIPTORS_LIMIT + 3; i++) hashes.push(await run.store.putJson({ i }));
    const gone = hashes[HELD_DESCRIPTORS_LIMIT + 1];
    await Deno.chmod(join(path, blobRelativePath(gone)), 0o644);
    await Deno.remove(join(path, blobRelativePath(gone)));
    await assert.rejects(() => run.store.sync(), (error: Error) => error.message.includes(gone.slice(2)));
    assert.equal(openUnder(join(path, "objects")), 0);
    await run.store.sync(); // nothing left unsynced
    await run.abandon();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a fresh run's seal keeps every blob a durable line names and removes those a refused line named", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "r");
    const run = await RunDir.create(path, header, { source: new TextEncoder().encode("a source") });
    const kept = await run.store.putJson({ kept: true });
    const input = await run.store.putJson({ input: true });
    const request = await run.store.putJson({ request: true }, { hold: false });
    const refused = await run.store.putJson({ refused: true });
    const shared = await run.store.putJson({ shared: true });
    const source = run.header.sources.source;
    await run.recordNode({
      ...node(0, kept),
      key: nodeKey("s", 1, { i: 0 }, { in: source }),
      inputs: { in: source },
      outputs: { out: kept, other: input },
      requests: [request],
    });
    // Not I-JSON: its line is refused, so the blob only it named is named by no line.
    await assert.rejects(
      () =>
        run.recordNode({ ...node(1, refused), outputs: { out: refused, also: shared }, params: { x: NaN } }),
      /not I-JSON/,
    );
    await run.recordNode(node(2, shared));
    const notes = await run.store.putText("published\n");
    await run.recordNode({ ...node(3, notes), outputs: { "notes.txt": notes } });
    await run.publish("notes.txt", notes);
    await run.finish();
    for (const hash of [kept, input, request, shared, source]) {
      await Deno.stat(join(path, blobRelativePath(hash))); // still there
    }
    await assert.rejects(() => Deno.stat(join(path, blobRelativePath(refused))), Deno.errors.NotFound);
    const report = await verifyRun(path);
    assert.deepEqual(report.problems, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the journal's running digest is the file's SHA-256 and lines; a reopened journal's is read back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "journal.jsonl");
    const hash = "a".repeat(64);
    const journal = await JournalWriter.create(path, { ...header, sources: {} });
    // Batched (appends during a sync), refused alone (not I-JSON), refused with its blobs: none of it skews the digest.
    await Promise.allSettled([
      journal.appendNode(node(0, hash)),
      journal.appendNode({ ...node(1, hash), params: { x: Number.NaN } }),
      journal.appendNode(node(2, hash), Promise.reject(new Error("EIO"))),
      journal.appendFile("f.json", hash),
    ]);
    await journal.appendNode(node(3, hash));
    await journal.close();
    const reading = await readJournal(path);
    assert.deepEqual(reading.problems, []);
    assert.deepEqual(journal.writtenDigest(), { lines: reading.lines, sha256: reading.sha256 });
    assert.equal(journal.writtenDigest(), null); // digested once
    const reopened = await JournalWriter.reopen(path, reading.lastLineHash);
    await reopened.appendNode(node(4, hash));
    await reopened.close();
    assert.equal(reopened.writtenDigest(), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
