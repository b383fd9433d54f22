import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobIntegrityError, blobRelativePath, BlobStore } from "../src/store/blob_store.ts";
import { sha256Hex } from "../src/store/hash.ts";
import { flipByte, listTree } from "./helpers/tree.ts";

Deno.test("identical content stored twice gives the same hash and one byte-identical file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = new BlobStore(dir);
    const b = new BlobStore(dir); // a second store instance does not share the in-memory cache
    const content = "the same bytes, twice\n";
    const first = await a.putText(content);
    const second = await b.put(new TextEncoder().encode(content));
    assert.equal(first, second);
    assert.equal(first, sha256Hex(content));
    assert.deepEqual(await listTree(dir), [blobRelativePath(first)]);
    assert.equal(await Deno.readTextFile(join(dir, blobRelativePath(first))), content);
    assert.equal(blobRelativePath(first), `objects/sha256/${first.slice(0, 2)}/${first.slice(2)}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("identical JSON values in different key order give one canonical blob", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BlobStore(dir);
    const one = await store.putJson({ b: [1, 2], a: "x" });
    const two = await store.putJson({ a: "x", b: [1, 2] });
    assert.equal(one, two);
    assert.equal(await store.getText(one), '{"a":"x","b":[1,2]}');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writing an existing blob is a no-op that leaves the file untouched", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const hash = await new BlobStore(dir).putText("written once");
    const path = join(dir, blobRelativePath(hash));
    const before = await Deno.stat(path);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await new BlobStore(dir).putText("written once"), hash);
    const after = await Deno.stat(path);
    assert.equal(after.mtime?.getTime(), before.mtime?.getTime());
    assert.equal(after.ino, before.ino);
    assert.deepEqual(await listTree(dir), [blobRelativePath(hash)]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writing a blob whose existing file was altered is refused, naming the blob", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const hash = await new BlobStore(dir).putText("original content");
    await flipByte(join(dir, blobRelativePath(hash)));
    await assert.rejects(
      () => new BlobStore(dir).putText("original content"),
      (error: unknown) => error instanceof BlobIntegrityError && error.message.includes(hash),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("blobs are read-only (mode 0444) once written", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const hash = await new BlobStore(dir).putText("read only");
    const info = await Deno.stat(join(dir, blobRelativePath(hash)));
    assert.equal((info.mode ?? 0) & 0o777, 0o444);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reading an altered blob fails naming the blob", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BlobStore(dir);
    const hash = await store.putJson({ answer: 42 });
    await flipByte(join(dir, blobRelativePath(hash)), 3);
    await assert.rejects(
      () => new BlobStore(dir).get(hash),
      (error: unknown) =>
        error instanceof BlobIntegrityError && error.hash === hash &&
        error.message === `${join(dir, blobRelativePath(hash))}: altered (content does not match its name)`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("reading a missing blob fails naming the blob", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const hash = sha256Hex("never stored");
    await assert.rejects(
      () => new BlobStore(dir).get(hash),
      (error: unknown) =>
        error instanceof BlobIntegrityError &&
        error.message === `${join(dir, blobRelativePath(hash))}: missing`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a blob name that is not a SHA-256 is refused", () => {
  assert.throws(() => new BlobStore("/nonexistent").pathOf("../../etc/passwd"), BlobIntegrityError);
});

Deno.test("a held blob reads back as it was written: changing the caller's array or a read copy changes nothing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BlobStore(dir);
    store.markFresh([]); // held, and read back without a file read
    const bytes = new TextEncoder().encode('{"a":1}');
    const hash = await store.put(bytes);
    bytes.fill(0x20); // the caller's buffer reused after the write
    const read = await store.get(hash);
    assert.equal(new TextDecoder().decode(read), '{"a":1}');
    read.fill(0x20); // a reader changing what it was given
    assert.equal(await store.getText(hash), '{"a":1}');
    assert.deepEqual({ ...(await store.getJson(hash) as object) }, { a: 1 });
    assert.equal(sha256Hex(await store.get(hash)), hash);
    // A JSON value's own encoded bytes are held as they are, and read back the same.
    const json = await store.putJson({ b: [1, "é"], a: null });
    assert.equal(await store.getText(json), '{"a":null,"b":[1,"é"]}');
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("texts stored back to back, at once, each keep their own bytes (fresh store or one that looks first)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Short and long, ASCII and not, one past the shared buffer's limit: each encoded over the last one's bytes.
    const texts = ["a", "é".repeat(40_000), '{"k":"\u{1F600}"}', "x".repeat(1024 * 1024 + 1), "b", "ü"];
    for (const fresh of [true, false]) {
      const root = join(dir, String(fresh));
      const store = new BlobStore(root);
      if (fresh) store.markFresh([]);
      const hashes = await Promise.all(texts.map((text) => store.putText(text)));
      assert.deepEqual(hashes, texts.map((text) => sha256Hex(text)));
      for (const [i, hash] of hashes.entries()) {
        assert.equal(await Deno.readTextFile(join(root, blobRelativePath(hash))), texts[i]);
        assert.equal(await store.getText(hash), texts[i]);
        assert.equal(new TextDecoder().decode(await store.get(hash)), texts[i]);
        assert.equal(await new BlobStore(root).getText(hash), texts[i]); // from its file, checked
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a blob stored with hold false is read back from its file, and checked against its name", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BlobStore(dir);
    store.markFresh([]);
    const held = await store.putJson({ held: true });
    const unheld = await store.putJson({ held: false }, { hold: false });
    await store.sync();
    for (const hash of [held, unheld]) {
      await flipByte(join(dir, blobRelativePath(hash)), 2);
    }
    // The held blob is read from memory (the bytes hashed to its name); the other from its file, so the
    // damage is found and named.
    assert.deepEqual({ ...(await store.getJson(held) as object) }, { held: true });
    await assert.rejects(() => store.getText(unheld), (error: unknown) => {
      assert.ok(error instanceof BlobIntegrityError);
      assert.equal(error.hash, unheld);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a blob's path is the run directory joined with its relative path, whatever the spelling of the root", async () => {
  const base = await Deno.makeTempDir();
  try {
    const hash = sha256Hex("path");
    for (const root of [base, `${base}/`, `${base}//run/../run2/.`, "relative/dir/", "./x"]) {
      assert.equal(new BlobStore(root).pathOf(hash), join(root, blobRelativePath(hash)), root);
    }
    const store = new BlobStore(`${base}//run/./`);
    const stored = await store.putText("path");
    assert.equal(stored, hash);
    assert.equal(await Deno.readTextFile(join(base, "run", blobRelativePath(hash))), "path");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
