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
