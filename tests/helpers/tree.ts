/**
 * Test helpers over directory trees: a digest of a whole tree (paths, kinds, modes, sizes, mtimes and file
 * bytes) to prove a directory was left exactly as it was, and byte edits of read-only files.
 *
 * @module
 */
import { join } from "node:path";
import { sha256Hex } from "../../src/store/hash.ts";

/** One line per entry under `dir`, sorted, describing it fully (content by SHA-256). */
export async function describeTree(dir: string): Promise<string[]> {
  const lines: string[] = [];
  const walk = async (path: string, rel: string) => {
    const info = await Deno.lstat(path);
    const head = `${rel || "."} mode=${info.mode?.toString(8)} mtime=${info.mtime?.getTime()}`;
    if (info.isDirectory) {
      lines.push(`${head} dir`);
      for await (const entry of Deno.readDir(path)) {
        await walk(join(path, entry.name), rel ? `${rel}/${entry.name}` : entry.name);
      }
    } else if (info.isSymlink) {
      lines.push(`${head} symlink -> ${await Deno.readLink(path)}`);
    } else {
      lines.push(`${head} size=${info.size} sha256=${sha256Hex(await Deno.readFile(path))}`);
    }
  };
  await walk(dir, "");
  return lines.sort();
}

/** Every file under `dir`, as paths relative to it, sorted. */
export async function listTree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) out.push(...await listTree(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** XORs one byte of a (possibly read-only) file with 0x01 and restores its mode. */
export async function flipByte(path: string, offset = 0): Promise<void> {
  const { mode } = await Deno.stat(path);
  await Deno.chmod(path, 0o644);
  const bytes = await Deno.readFile(path);
  bytes[Math.min(offset, bytes.length - 1)] ^= 0x01;
  await Deno.writeFile(path, bytes);
  await Deno.chmod(path, (mode ?? 0o444) & 0o777);
}
