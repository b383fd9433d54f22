/**
 * Paths of assets shipped with the program, relative to this module (a checkout or a `deno compile` binary).
 * @module
 */

/** The filesystem path of a file under the project root, e.g. `assetPath("fixtures/tokenizers/qwen3")`. */
export function assetPath(relativePath: string): string {
  return decodeURIComponent(new URL(`../${relativePath}`, import.meta.url).pathname);
}

/** Directory of the default tokenizer (Qwen3), shipped in fixtures/. */
export const DEFAULT_TOKENIZER_DIR: string = assetPath("fixtures/tokenizers/qwen3");
