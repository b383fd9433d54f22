/**
 * The binding of a run's header to its DAG: a `run-header` node whose params are the recorded options that
 * change what the run computes and the protocol (`header_mismatch` in `--rederive` when they differ).
 * @module
 */
import { z } from "zod";
import { canonicalJson } from "../store/canonical.ts";
import type { Manifest } from "../store/manifest.ts";
import { defineStage } from "./stage.ts";

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

/** Recorded options that do not change what a run computes (mirrored by `UNBOUND_OPTIONS` in scripts/audit_run.py). */
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

/** The options a `run-header` node binds: all but {@link UNBOUND_OPTIONS} and those naming a `sources` key. */
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
