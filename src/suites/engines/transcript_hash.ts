/**
 * The identity of a transcript: SHA-256 (hex) of the RFC 8785 canonical JSON of its messages.
 * @module
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { ChatMessage } from "../../models/messages.ts";

/** SHA-256 (hex) of the canonical JSON of `messages`. */
export function transcriptHash(messages: ChatMessage[]): string {
  const json = canonicalize(messages);
  if (json === undefined) throw new TypeError("messages cannot be canonicalized");
  return createHash("sha256").update(json).digest("hex");
}
