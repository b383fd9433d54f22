/**
 * Re-sealing a finished run after changing the bytes behind one published file, as a forger who knows the
 * format would: the new blob is stored under its hash (the old one removed), the producing node's output and
 * the file record point at it, every node that reads it gets its input and key recomputed, the journal is
 * rewritten with a fresh chain and the manifest with the journal's new digest. Plain `verify` cannot tell.
 *
 * @module
 */
import { join } from "node:path";
import { canonicalJson } from "../../src/store/canonical.ts";
import { sha256Hex } from "../../src/store/hash.ts";
import { type Node, nodeKey } from "../../src/store/manifest.ts";

/** Copies a run directory (blobs stay read-only in the copy; the copy's directories are writable). */
export async function copyRun(from: string, to: string): Promise<void> {
  const copied = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  if (!copied.success) throw new Error(`cp -a ${from} ${to} failed`);
  await new Deno.Command("find", { args: [to, "-type", "d", "-exec", "chmod", "u+w", "{}", "+"] }).output();
}

function blobPath(run: string, hash: string): string {
  return join(run, "objects", "sha256", hash.slice(0, 2), hash.slice(2));
}

/** Replaces the bytes of published file `name` of `run` with `edit(old text)` and re-seals the run. */
export async function resealWithEditedFile(
  run: string,
  name: string,
  edit: (text: string) => string,
): Promise<{ oldHash: string; newHash: string }> {
  const manifest = JSON.parse(await Deno.readTextFile(join(run, "manifest.json")));
  const oldHash: string = manifest.files[name];
  const bytes = new TextEncoder().encode(edit(await Deno.readTextFile(join(run, name))));
  const newHash = sha256Hex(bytes);
  if (newHash === oldHash) throw new Error("the edit changed nothing");
  await Deno.mkdir(join(run, "objects", "sha256", newHash.slice(0, 2)), { recursive: true });
  await Deno.writeFile(blobPath(run, newHash), bytes);
  await Deno.chmod(blobPath(run, newHash), 0o444); // a careful forger keeps blobs read-only, as verify wants
  await Deno.remove(blobPath(run, oldHash));
  await Deno.remove(join(run, name));
  await Deno.writeFile(join(run, name), bytes);
  const swap = (record: Record<string, string>) => {
    for (const [k, v] of Object.entries(record)) if (v === oldHash) record[k] = newHash;
  };
  const nodes: Node[] = manifest.nodes;
  for (const node of nodes) {
    swap(node.outputs);
    const before = JSON.stringify(node.inputs);
    swap(node.inputs);
    if (JSON.stringify(node.inputs) !== before) {
      node.key = nodeKey(node.stage, node.version, node.params, node.inputs);
    }
  }
  swap(manifest.files);
  // The journal: the same records, the new values, a fresh chain.
  const oldLines = (await Deno.readTextFile(join(run, "journal.jsonl"))).split("\n").filter((l) => l !== "");
  const lines: string[] = [];
  let prev: string | null = null;
  let nodeIndex = 0;
  for (const line of oldLines) {
    const entry = JSON.parse(line);
    if (entry.type === "node") entry.node = nodes[nodeIndex++];
    if (entry.type === "file") entry.hash = manifest.files[entry.name];
    const text: string = canonicalJson({ ...entry, prev });
    lines.push(text);
    prev = sha256Hex(text);
  }
  const journal = new TextEncoder().encode(lines.map((l) => l + "\n").join(""));
  await Deno.remove(join(run, "journal.jsonl"));
  await Deno.writeFile(join(run, "journal.jsonl"), journal);
  manifest.journal = { lines: lines.length, sha256: sha256Hex(journal) };
  await Deno.remove(join(run, "manifest.json"));
  await Deno.writeTextFile(join(run, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return { oldHash, newHash };
}
