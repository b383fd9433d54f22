/**
 * The answering models an aggregate records, checked against the call records they count (`verify
 * --rederive`), where the suite's rule (`Suite.rederive.answering`) leaves no choice: a group's `chat` role is
 * its answer nodes' records, an engine row's `chat` and `decision` roles its engine node's. And the sums of node
 * usage the suites check against what their aggregates record (`Suite.rederive.usageProblems`).
 * @module
 */
import type { CallRecord } from "../core/call_record.ts";
import { addModelCalls, type ModelCalls, modelsOfRecords } from "../core/answering_models.ts";
import type { BlobStore } from "../store/blob_store.ts";
import { canonicalJson } from "../store/canonical.ts";
import { addUsage, emptyUsage, type Usage } from "../core/usage.ts";
import type { Manifest, Node } from "../store/manifest.ts";

/** Where an aggregate's answering models come from: each group's answer nodes, or each engine row's node. */
export type AnsweringRule =
  | { aggregate: string; answers: string }
  | { aggregate: string; engines: string };

type RolesOf = Record<string, { answered?: unknown } | undefined>;

/** Every aggregate's recorded answering models that are not what its nodes' call records say. */
export async function answeringModelProblems(
  manifest: Manifest,
  store: BlobStore,
  rules: readonly AnsweringRule[],
): Promise<{ node: Node; message: string }[]> {
  const out: { node: Node; message: string }[] = [];
  const cache = new Map<string, { chat: ModelCalls; systemone: ModelCalls }>();
  const modelsOf = async (node: Node) => {
    let known = cache.get(node.key);
    if (!known) {
      const records: Pick<CallRecord, "model" | "endpoint">[] = [];
      for (const hash of node.requests) {
        const record = await store.getJson(hash) as { model?: unknown; endpoint?: unknown };
        records.push({
          model: typeof record.model === "string" ? record.model : undefined,
          endpoint: record.endpoint === "systemone" ? "systemone" : "chat",
        });
      }
      known = {
        chat: modelsOfRecords(records.filter((r) => r.endpoint === "chat")),
        systemone: modelsOfRecords(records.filter((r) => r.endpoint === "systemone")),
      };
      cache.set(node.key, known);
    }
    return known;
  };
  const differs = (node: Node, what: string, recorded: unknown, expected: ModelCalls) => {
    if (canonicalJson(recorded ?? {}) === canonicalJson(expected)) return;
    const message = `answering_models of ${what} ${canonicalJson(recorded ?? {})} is not its call records' ${
      canonicalJson(expected)
    }`;
    out.push({ node, message });
  };
  for (const node of manifest.nodes) {
    const recorded = (node.params as { answering_models?: unknown }).answering_models;
    if (recorded === null || typeof recorded !== "object") continue;
    const rule = rules.find((r) => r.aggregate === node.stage);
    if (rule !== undefined && "answers" in rule) {
      const answerStage = rule.answers;
      const several = manifest.nodes.filter((n) => n.stage === node.stage).length > 1;
      const cap = several ? Number(/cap=(\d+)/.exec(node.label)?.[1]) : undefined;
      for (const [group, roles] of Object.entries(recorded as Record<string, RolesOf>)) {
        const expected: ModelCalls = {};
        for (const answer of manifest.nodes) {
          if (answer.stage !== answerStage) continue;
          const p = answer.params as { method?: unknown; kind?: unknown; input_cap?: unknown };
          if ((p.method ?? p.kind) !== group) continue;
          if (cap !== undefined && p.input_cap !== null && p.input_cap !== cap) continue;
          addModelCalls(expected, (await modelsOf(answer)).chat);
        }
        differs(node, `${group} (chat)`, roles?.chat?.answered, expected);
      }
    } else if (rule !== undefined) {
      const engineStage = rule.engines;
      for (const [row, roles] of Object.entries(recorded as Record<string, RolesOf>)) {
        // `engine:<budget>:<name>`, or `engine:s<N>:<budget>:<name>` for conversation N of a --sample run.
        const parts = row.split(":").slice(1);
        const sample = /^s(\d+)$/.test(parts[0]) ? Number(parts.shift()!.slice(1)) : undefined;
        const [budget, ...name] = parts;
        const engine = manifest.nodes.find((n) => {
          const p = n.params as {
            budget?: unknown;
            name?: unknown;
            engine?: unknown;
            conversation?: { sample?: unknown };
          };
          return n.stage === engineStage && p.budget === budget &&
            (p.name ?? p.engine) === name.join(":") && p.conversation?.sample === sample;
        });
        if (!engine) {
          out.push({ node, message: `answering_models names ${row}, which no engine node is` });
          continue;
        }
        const models = await modelsOf(engine);
        differs(node, `${row} (chat)`, roles?.chat?.answered, models.chat);
        differs(node, `${row} (decision)`, roles?.decision?.answered, models.systemone);
      }
    }
  }
  return out;
}

/** The usage of `nodes` that did not come from a frozen run (those made their calls there). */
export function ownUsage(nodes: readonly Node[]): Usage {
  const total = emptyUsage();
  for (const node of nodes) if (node.reused_from === undefined) addUsage(total, node.usage);
  return total;
}

/** True when a recorded usage (any JSON) is exactly `b`. */
export const sameUsage = (a: unknown, b: Usage): boolean => canonicalJson(a ?? null) === canonicalJson(b);
