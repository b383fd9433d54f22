/**
 * Subprocess for the crash-safety test: `deno run -A tests/helpers/write_big_blob.ts DIR MEGABYTES` stores one
 * blob of MEGABYTES MiB (a pattern that differs per run) in a {@link BlobStore} rooted at DIR and prints its
 * hash. The test kills it with SIGKILL while the blob is being written.
 *
 * @module
 */
import { BlobStore } from "../../src/store/blob_store.ts";

if (import.meta.main) {
  const [dir, megabytes] = Deno.args;
  const bytes = new Uint8Array(Number(megabytes) * 1024 * 1024);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i >>> 12) & 0xff;
  crypto.getRandomValues(bytes.subarray(0, 64));
  console.log(await new BlobStore(dir).put(bytes));
}
