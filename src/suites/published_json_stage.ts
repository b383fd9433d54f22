/**
 * `published-json`: a JSON file a run publishes as given (`protocol.json`, `check.json`), a node output like
 * every other: the document is its params, and its inputs (by hash only) the results it accompanies.
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

/** The `of:<file>` inputs of the published files `of` (file name → blob hash). */
function ofInputs(of: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(of).map(([file, hash]) => [`of:${file}`, hash]));
}

/** Publishes `document` as the run's file `name`, through a `published-json` node below the files `of`. */
export async function publishJsonFile(
  executor: Executor,
  run: RunDir,
  name: string,
  document: unknown,
  of: Record<string, string> = {},
): Promise<void> {
  const params = { name, document };
  const node = await executor.runStage(publishedJsonStage, {
    label: `publish ${name}`,
    params,
    inputs: ofInputs(of),
  }, {});
  await run.publish(name, node.node.outputs.file);
}

/** Runs the `run-header` node below the files `of`; returns the input that binds a published file to it. */
export async function bindRunHeader(
  executor: Executor,
  run: RunDir,
  of: Record<string, string> = {},
): Promise<Record<string, string>> {
  const params = runHeaderParams(run.header);
  const node = await executor.runStage(
    runHeaderStage,
    { label: "run header", params, inputs: ofInputs(of) },
    {},
  );
  return { [runHeaderStage.name]: node.node.outputs.header };
}
