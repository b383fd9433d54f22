/**
 * The binding of a run's header to its DAG: one `run-header` node whose params are the header's recorded
 * options (`invocation.options`) and `protocol`, and whose output the published JSON files (protocol.json,
 * check.json) take as an input. A header re-sealed with other options or another protocol (`answers` 1 → 5)
 * no longer equals that node's params, and `verify --rederive` (and `scripts/audit_run.py --strict`) name it
 * (`header_mismatch`); a forger who also edits the node changes its key and every published file's after it.
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
  version: 1,
  doc:
    "Binds the run header's recorded options and protocol into the DAG: they are this node's params; the " +
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

/** The params the `run-header` node of a run with this header has. */
export function runHeaderParams(header: { invocation: { options: unknown }; protocol: unknown }): {
  options: unknown;
  protocol: unknown;
} {
  return { options: header.invocation.options ?? null, protocol: header.protocol ?? null };
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
