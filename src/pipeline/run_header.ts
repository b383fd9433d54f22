/**
 * The binding of a run's header to its DAG: one `run-header` node whose params are the header's recorded
 * options that change what the run computes (`invocation.options` without {@link UNBOUND_OPTIONS} and the
 * options naming a source file, whose bytes `sources` binds) and `protocol`; the published JSON files
 * (protocol.json, check.json) take its output as an input. Two runs of one corpus in two folders thus have the
 * same published nodes. A header re-sealed with other options or protocol no longer equals the node's params,
 * and `verify --rederive` and `scripts/audit_run.py --strict` name it (`header_mismatch`); editing the node too
 * changes its key and every published file's after it.
 *
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "../store/canonical.ts";
import type { Manifest } from "../store/manifest.ts";
import { defineStage } from "./stage.ts";

/** The name of the binding stage. */
export const RUN_HEADER_STAGE = "run-header";

/** The `run-header` stage: the header's options and protocol as params, echoed with the node key. */
export const runHeaderStage = defineStage({
  name: RUN_HEADER_STAGE,
  // v2: the params bind only the options that change what the run computes (not --output, transport, progress).
  version: 2,
  doc:
    "Binds the run header's recorded options that change what the run computes (not output paths, source " +
    "paths, transport or progress options) and its protocol into the DAG: they are this node's params; the " +
    "published JSON files take its output as an input.",
  params: z.object({ options: z.unknown(), protocol: z.unknown() }),
  inputs: ["of:*"],
  hashOnlyInputs: ["of:*"],
  outputs: {
    header: {
      schema: z.object({ node: z.string(), options: z.unknown(), protocol: z.unknown() }),
      doc: "the node key, the recorded options and the protocol",
    },
  },
  provider: false,
  run({ params, key }) {
    return Promise.resolve({
      outputs: { header: { node: key, options: params.options, protocol: params.protocol } },
    });
  },
});

/**
 * Recorded options that do not change what a run computes, so the `run-header` node does not bind them: where
 * the run is written (`--output`, `--out`), which earlier run it reuses nodes of (`--retry-failed`,
 * `--frozen-run`: only nodes whose keys match are reused), transport (`--concurrency`, `--timeout-ms`,
 * `--max-retries`, `--reference-delay-ms`, `--max-response-bytes`: a call that fails is recorded as failed either way) and progress
 * (`--quiet`). Mirrored by `scripts/audit_run.py` (`UNBOUND_OPTIONS`).
 */
export const UNBOUND_OPTIONS: readonly string[] = [
  "output",
  "out",
  "quiet",
  "retry-failed",
  "frozen-run",
  "resume",
  "env-file",
  "help",
  "concurrency",
  "timeout-ms",
  "max-retries",
  "reference-delay-ms",
  "max-response-bytes",
];

/**
 * The options a `run-header` node binds: `options` without {@link UNBOUND_OPTIONS} and without the options
 * named like a key of `sources` (a source file's path: its bytes are bound by their hash). Options that are not
 * an object (a merged run's) are bound as they are.
 */
export function boundOptions(options: unknown, sources: unknown): unknown {
  if (options === null || typeof options !== "object" || Array.isArray(options)) return options ?? null;
  const sourceNames = sources !== null && typeof sources === "object" ? Object.keys(sources) : [];
  return Object.fromEntries(
    Object.entries(options).filter(([name]) =>
      !UNBOUND_OPTIONS.includes(name) && !sourceNames.includes(name)
    ),
  );
}

/** The params the `run-header` node of a run with this header has. */
export function runHeaderParams(
  header: { invocation: { options: unknown }; protocol: unknown; sources?: unknown },
): {
  options: unknown;
  protocol: unknown;
} {
  return {
    options: boundOptions(header.invocation.options, header.sources),
    protocol: header.protocol ?? null,
  };
}

/** What is wrong with the binding of `manifest`'s header: no `run-header` node, several, or other params. */
export function headerProblems(manifest: Manifest): { message: string }[] {
  const nodes = manifest.nodes.filter((n) => n.stage === RUN_HEADER_STAGE);
  if (nodes.length === 0) {
    return [{ message: "no run-header node binds the header's options and protocol into the DAG" }];
  }
  if (nodes.length > 1) return [{ message: `${nodes.length} run-header nodes (one expected)` }];
  const want = runHeaderParams(manifest);
  const params = nodes[0].params as { options?: unknown; protocol?: unknown };
  const out: { message: string }[] = [];
  if (canonicalJson(params.options ?? null) !== canonicalJson(want.options)) {
    out.push({ message: "the header's invocation.options differ from those the run-header node recorded" });
  }
  if (canonicalJson(params.protocol ?? null) !== canonicalJson(want.protocol)) {
    out.push({ message: "the header's protocol differs from the one the run-header node recorded" });
  }
  return out;
}
