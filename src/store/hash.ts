/**
 * SHA-256 helpers (`node:crypto`: synchronous, and streams large files).
 * @module
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical.ts";

/** Lower-case hex SHA-256 of bytes (whole, or in chunks read in order) or of a string's UTF-8 bytes. */
export function sha256Hex(data: Uint8Array | string | readonly Uint8Array[]): string {
  if (typeof data === "string" || data instanceof Uint8Array) {
    return createHash("sha256").update(data).digest("hex");
  }
  const hash = createHash("sha256");
  for (const chunk of data) hash.update(chunk);
  return hash.digest("hex");
}

/** SHA-256 of the RFC 8785 canonical JSON of `value`: the hash of every record the store keys by content. */
export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** True for a 64-character lower-case hex string. */
export function isSha256Hex(text: string): boolean {
  return /^[0-9a-f]{64}$/.test(text);
}

/** Streams a file through SHA-256 in 1 MiB reads; returns the hex digest. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(1 << 20);
  while (true) {
    const n = await file.read(buffer);
    if (n === null) break;
    hash.update(buffer.subarray(0, n));
  }
  return hash.digest("hex");
}
