/**
 * Forging a finished run as a careful forger would: edit its header and nodes, then write the journal with a
 * fresh chain and the manifest with the journal's new digest (or, with `unseal`, drop the manifest and the
 * published files so that `--resume` finishes the run again). Plain `verify` cannot tell.
 *
 * @module
 */
import { join } from "node:path";
import { canonicalJson } from "../../src/store/canonical.ts";
import { sha256Hex } from "../../src/store/hash.ts";
import type { Node } from "../../src/store/manifest.ts";

/** What a forgery edits. */
export interface Forgery {
  /** Edits the header in place. */
  header?: (header: Record<string, unknown>) => void;
  /** Edits the nodes in place; returns the nodes to keep (default all). */
  nodes?: (nodes: Node[]) => Node[] | void | Promise<Node[] | void>;
  /** Drop the manifest, the file records and the published files: the run is unfinished again. */
  unseal?: boolean;
}

/** Stores `bytes` as a read-only blob of `run` and returns its hash. */
export async function putBlob(run: string, bytes: Uint8Array): Promise<string> {
  const hash = sha256Hex(bytes);
  const dir = join(run, "objects", "sha256", hash.slice(0, 2));
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, hash.slice(2));
  await Deno.writeFile(path, bytes);
  await Deno.chmod(path, 0o444);
  return hash;
}

/** Reads blob `hash` of `run` as JSON. */
export async function readBlobJson(run: string, hash: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(join(run, "objects", "sha256", hash.slice(0, 2), hash.slice(2))));
}

/** Applies `forgery` to the finished run `run` and re-seals it (or unseals it). */
export async function forgeRun(run: string, forgery: Forgery): Promise<void> {
  const lines = (await Deno.readTextFile(join(run, "journal.jsonl"))).split("\n").filter((l) => l !== "");
  const entries = lines.map((l) => JSON.parse(l));
  const header = entries[0].header as Record<string, unknown>;
  forgery.header?.(header);
  let nodes: Node[] = entries.filter((e) => e.type === "node").map((e) => e.node);
  nodes = (await forgery.nodes?.(nodes)) ?? nodes;
  const files = forgery.unseal ? [] : entries.filter((e) => e.type === "file");
  const out: string[] = [];
  let prev: string | null = null;
  for (
    const entry of [{ header, type: "header" }, ...nodes.map((node) => ({ node, type: "node" })), ...files]
  ) {
    const text: string = canonicalJson({ ...entry, prev });
    out.push(text);
    prev = sha256Hex(new TextEncoder().encode(text));
  }
  const journal = new TextEncoder().encode(out.map((l) => l + "\n").join(""));
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  await Deno.remove(join(run, "journal.jsonl"));
  await Deno.writeFile(join(run, "journal.jsonl"), journal);
  await Deno.remove(join(run, "manifest.json"));
  if (forgery.unseal) {
    for (const name of Object.keys(manifest.files)) await Deno.remove(join(run, name));
    return;
  }
  const sealed = {
    ...manifest,
    ...header,
    nodes,
    journal: { lines: out.length, sha256: sha256Hex(journal) },
  };
  await Deno.writeTextFile(join(run, "manifest.json"), JSON.stringify(sealed, null, 2) + "\n");
}
