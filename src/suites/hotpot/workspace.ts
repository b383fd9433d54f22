/**
 * A question's workspace: ten article files, one sentence per line; gold labels are never written into it.
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Article } from "../../data/hotpot_record.ts";

/** One article file of a workspace. */
export interface WorkspaceFile {
  title: string;
  /** The file name, relative to the workspace directory (what `read_file` takes). */
  path: string;
  lines: string[];
}

/** A created workspace. */
export interface Workspace {
  dir: string;
  files: WorkspaceFile[];
}

/** A safe file-name stem: diacritics folded, `[a-z0-9]` runs joined by `_`, ≤ 60 characters, or `article`. */
export function titleSlug(title: string): string {
  const slug = title.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 60).replace(/_+$/, "");
  return slug === "" ? "article" : slug;
}

/** Unique slugs for titles in order: a repeated slug gets `_2`, `_3`, … */
export function uniqueSlugs(titles: readonly string[]): string[] {
  const used = new Set<string>();
  return titles.map((title) => {
    const base = titleSlug(title);
    let slug = base;
    for (let n = 2; used.has(slug); n++) slug = `${base}_${n}`;
    used.add(slug);
    return slug;
  });
}

/** The workspace files of a record's articles (names are `${slug}.txt`, in context order). */
export function workspaceFiles(articles: readonly Article[]): WorkspaceFile[] {
  const slugs = uniqueSlugs(articles.map((a) => a.title));
  return articles.map((a, i) => ({ title: a.title, path: `${slugs[i]}.txt`, lines: [...a.sentences] }));
}

/** The text of a workspace file: each line followed by `\n`. */
export function fileText(lines: readonly string[]): string {
  return lines.map((l) => `${l}\n`).join("");
}

/** Writes the articles into `dir` (created if needed; existing article files are refused). */
export async function createWorkspace(articles: readonly Article[], dir: string): Promise<Workspace> {
  await Deno.mkdir(dir, { recursive: true });
  const files = workspaceFiles(articles);
  for (const f of files) {
    await Deno.writeTextFile(join(dir, f.path), fileText(f.lines), { createNew: true });
  }
  return { dir, files };
}

/** SHA-256 (hex) of every workspace file's current bytes, keyed by path; a missing file maps to "missing". */
export async function hashWorkspace(workspace: Workspace): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of workspace.files) {
    try {
      out[f.path] = createHash("sha256").update(await Deno.readFile(join(workspace.dir, f.path))).digest(
        "hex",
      );
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      out[f.path] = "missing";
    }
  }
  return out;
}
