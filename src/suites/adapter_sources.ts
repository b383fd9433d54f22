/**
 * The adapter files an outside engine or agent of a run uses, kept in the run as sources `adapter:<path>`, so
 * the code that produced its numbers is in it; a file over {@link MAX_ADAPTER_BYTES} is bound by its hash in
 * the node keys alone.
 * @module
 */
import { UsageError } from "../errors.ts";
import { readInputFile } from "../fs_input.ts";

/** Largest adapter file kept in a run (bytes). */
const MAX_ADAPTER_BYTES = 4 * 1024 * 1024;

/** The engine and agent specs of a run's options. */
function specs(options: Record<string, unknown>): string[] {
  const out: string[] = [];
  const add = (value: unknown, named: boolean) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== "string") continue;
      // `--method NAME=SPEC`: the spec after a name that is not itself part of a command.
      const at = named ? item.indexOf("=") : -1;
      const spec = at > 0 && !item.slice(0, at).includes(":") ? item.slice(at + 1) : item;
      out.push(spec);
    }
  };
  add(options.engine, false);
  add(options.method, true);
  add(options.agent, false);
  return out;
}

/** The run sources `adapter:<path>` of the adapter files the options' engines and agents use. */
export async function adapterSources(options: Record<string, unknown>): Promise<Record<string, Uint8Array>> {
  const given = specs(options);
  if (given.length === 0) return {};
  const { adapterHashes } = await import("../methods/engine_method.ts");
  const sources: Record<string, Uint8Array> = {};
  for (const spec of given) {
    let files: string[];
    try {
      files = Object.keys(await adapterHashes(spec));
    } catch (error) {
      // A spec the suite refuses is refused there, with its own message.
      if (error instanceof UsageError) continue;
      throw error;
    }
    for (const file of files) {
      const info = await Deno.stat(file);
      if (info.size > MAX_ADAPTER_BYTES) continue;
      sources[`adapter:${file}`] = await readInputFile(file, "an engine's adapter");
    }
  }
  return sources;
}
