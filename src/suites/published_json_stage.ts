/**
 * `published-json`: a JSON file a run publishes as given (`protocol.json`, `check.json`). The document is the
 * node's params and the file's exact bytes its output, so the published file is a node output like every
 * other (an auditor finds it in the DAG; `--rederive` re-derives it). Its inputs, by hash only, are the
 * published results it accompanies (`of:aggregate.json`): the file hangs in the DAG below the aggregate.
 *
 * @module
 */
import { z } from "zod";
import type { Executor } from "../pipeline/executor.ts";
import { defineStage } from "../pipeline/stage.ts";
import type { RunDir } from "../store/run_dir.ts";
import { publishedJson } from "./published.ts";
import { runHeaderParams, runHeaderStage } from "../pipeline/run_header.ts";

/** The `published-json` stage. */
export const publishedJsonStage = defineStage({
  name: "published-json",
  version: 1,
  doc: "A JSON file published as given (protocol.json, check.json): the document is the params.",
  params: z.object({ name: z.string(), document: z.unknown() }),
  inputs: ["of:*"],
  hashOnlyInputs: ["of:*"],
  outputs: {
    file: { schema: z.string(), kind: "text", doc: "the file's exact bytes (two-space JSON, final newline)" },
  },
  provider: false,
  run({ params }) {
    return Promise.resolve({ outputs: { file: publishedJson(params.document) } });
  },
});

/**
 * Publishes `document` as the run's file `name`, through a `published-json` node whose inputs are `of` (the
 * published results it accompanies, by file name → blob hash).
 */
export async function publishJsonFile(
  executor: Executor,
  run: RunDir,
  name: string,
  document: unknown,
  of: Record<string, string> = {},
): Promise<void> {
  const inputs = Object.fromEntries(Object.entries(of).map(([file, hash]) => [`of:${file}`, hash]));
  const node = await executor.runStage(publishedJsonStage, {
    label: `publish ${name}`,
    params: { name, document },
    inputs,
  }, {});
  await run.publish(name, node.node.outputs.file);
}

/**
 * Runs the run's `run-header` node (its header's options and protocol as params, below the published results
 * `of`), and returns the input that binds a published JSON file to it (`of:run-header` → its output's hash).
 */
export async function bindRunHeader(
  executor: Executor,
  run: RunDir,
  of: Record<string, string> = {},
): Promise<Record<string, string>> {
  const inputs = Object.fromEntries(Object.entries(of).map(([file, hash]) => [`of:${file}`, hash]));
  const node = await executor.runStage(runHeaderStage, {
    label: "run header",
    params: runHeaderParams(run.header),
    inputs,
  }, {});
  return { [runHeaderStage.name]: node.node.outputs.header };
}
