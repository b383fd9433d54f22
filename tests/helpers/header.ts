/**
 * A fixed run header for tests that create run directories directly through {@link RunDir.create}.
 *
 * @module
 */
import { RUN_FORMAT, type RunHeader } from "../../src/store/manifest.ts";
import { sha256Hex } from "../../src/store/hash.ts";

/** A valid header (without sources) for a test run of `suite`. */
export function testHeader(suite = "test"): Omit<RunHeader, "sources"> {
  return {
    format: RUN_FORMAT,
    program: { name: "compaction-bench-test", version: "0", source_hash: sha256Hex("test") },
    suite,
    invocation: { command: [suite], options: {} },
    tokenizer: null,
    protocol: {},
    created: "2026-01-01T00:00:00.000Z",
  };
}
