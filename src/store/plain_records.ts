/**
 * Fast acceptance of the usual shapes of a run's manifest nodes (journal lines: journal.ts) for `verify` and
 * resume, which read thousands. One-sided, as src/core/plain_check.ts: yes only for a value its zod schema
 * accepts and would return unchanged; a no decides nothing (the caller parses with the schema).
 *
 * @module
 */
import { type Node, NodeSchema } from "./manifest.ts";
import { plainCheck } from "../core/plain_check.ts";

/** True only when `NodeSchema` accepts `node` and would return it unchanged. */
export const isPlainNode = plainCheck(NodeSchema);

/**
 * The text `nodeKey` hashes, sliced from `text`, the canonical JSON of `node` (a node {@link isPlainNode}
 * accepts): its inputs and params are written there already. In canonical text a raw `},"key":"`,
 * `},"params":` or `,"requests":[` cannot lie inside a string, and inputs and outputs are flat.
 */
export function keyTextOfCanonical(node: Node, text: string): string {
  const inputsAt = `{"finished":${JSON.stringify(node.finished)},"inputs":`.length;
  const inputsEnd = text.indexOf('},"key":"', inputsAt) + 1;
  const paramsAt = text.indexOf('},"params":', inputsEnd) + 11;
  let paramsEnd = text.lastIndexOf(',"requests":[');
  if (node.reason !== undefined) paramsEnd -= `,"reason":${JSON.stringify(node.reason)}`.length;
  return `{"inputs":${text.slice(inputsAt, inputsEnd)},"params":${text.slice(paramsAt, paramsEnd)},"stage":${
    JSON.stringify(node.stage)
  },"version":${node.version}}`;
}
