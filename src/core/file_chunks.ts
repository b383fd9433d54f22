/**
 * A file's bytes in chunks read into one buffer that is reused: reading a large file (a journal, a published
 * corpus) leaves no garbage of chunk buffers behind for the collector.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** Size of the reused buffer (bytes). */
export const FILE_CHUNK_BYTES = 1 << 20;

/**
 * The bytes of the file at `path`, chunk by chunk. Each chunk is a view of the one reused buffer: it is valid
 * only until the next chunk is asked for (copy what must be kept). The file is closed when the loop ends or
 * leaves early.
 */
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
