/**
 * The `hotpot-collect` stage: one question's trajectory. Its body runs inside the collect suite
 * (`../collect_suite.ts`: it drives agents and workspaces), which executes its nodes under this declaration's
 * name and version; the declaration here is what the registry and `verify --rederive` see (a provider stage,
 * never re-executed).
 *
 * @module
 */
import { z } from "zod";
import { defineStage } from "../../../../pipeline/stage.ts";

const loose = z.record(z.string(), z.unknown());

/** `hotpot-collect`: scripted read_file calls, a live agent loop, an imported Hermes session or an outside agent. */
export const hotpotCollectStage = defineStage({
  name: "hotpot-collect",
  version: 4,
  doc:
    "One question's trajectory: scripted read_file calls over a real workspace, a live agent loop, an imported " +
    "Hermes session (its raw file, the run source session:<id>, is the input `session`), or an outside agent.",
  params: loose,
  inputs: ["dataset", "session"],
  outputs: {
    collection: {
      schema: loose.nullable(),
      doc: "the collected messages and the agent's initial system prompt (text, sha256)",
    },
    check: {
      schema: loose,
      doc: "the collection checks' verdict and whether files unchanged was verifiable",
    },
    session_text: { schema: z.string().nullable(), doc: "an outside agent's raw stdout (agent mode only)" },
  },
  provider: true,
  run: () =>
    Promise.reject(new Error("hotpot-collect runs inside its suite (it drives agents and workspaces)")),
});
