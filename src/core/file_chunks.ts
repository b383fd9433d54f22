/**
 * A file's bytes, hash and lines read in chunks through one reused buffer: a large file is never held whole.
 * @module
 */
import { Buffer, isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { concatBytes } from "./bytes.ts";

export const FILE_CHUNK_BYTES = 1 << 20;

/** The file's bytes, chunk by chunk; each chunk is a view of the reused buffer, valid until the next one. */
export async function* fileChunks(path: string, size = FILE_CHUNK_BYTES): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(size);
  const file = await Deno.open(path);
  try {
    while (true) {
      const n = await file.read(buffer);
      if (n === null) return;
      yield buffer.subarray(0, n);
    }
  } finally {
    file.close();
  }
}

/** The SHA-256 (lowercase hex) of a file, read in chunks (each also given to `each`, valid during the call). */
export async function hashFile(path: string, each?: (chunk: Uint8Array) => void): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of fileChunks(path)) {
    hash.update(chunk);
    each?.(chunk);
  }
  return hash.digest("hex");
}

/** The lines of a file (without their newlines), read in chunks: a file of any size is never held whole. */
export async function* fileLines(path: string, size = FILE_CHUNK_BYTES): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pending: Uint8Array[] = [];
  for await (const chunk of fileChunks(path, size)) {
    let start = 0;
    if (pending.length > 0) {
      const end = chunk.indexOf(10);
      if (end === -1) {
        pending.push(chunk.slice()); // the chunk's buffer is reused
        continue;
      }
      pending.push(chunk.subarray(0, end));
      yield decoder.decode(concatBytes(pending));
      pending = [];
      start = end + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (last >= start && isAscii(chunk.subarray(start, last))) {
      // The chunk's whole ASCII lines (most files') decoded at once: Latin-1 reads ASCII as UTF-8 does.
      const lines = chunk.subarray(start, last);
      yield* Buffer.from(lines.buffer, lines.byteOffset, lines.byteLength).toString("latin1").split("\n");
      start = last + 1;
    }
    // Else each line decoded on its own (so a BOM is dropped at every line's start, as before).
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      yield decoder.decode(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start < chunk.length) pending.push(chunk.slice(start)); // the chunk's buffer is reused
  }
  if (pending.length > 0) yield decoder.decode(concatBytes(pending));
}
