/**
 * Paths of assets shipped with the program, relative to this module (a checkout or a `deno compile` binary).
 * @module
 */

/** The URL of a file under the project root, e.g. `assetUrl("fixtures/tokenizers/qwen3/tokenizer.json")`. */
export function assetUrl(relativePath: string): URL {
  return new URL(`../${relativePath}`, import.meta.url);
}

/** The filesystem path of a file under the project root. */
export function assetPath(relativePath: string): string {
  const url = assetUrl(relativePath);
  return decodeURIComponent(url.pathname);
}

/** Directory of the default tokenizer (Qwen3), shipped in fixtures/. */
export const DEFAULT_TOKENIZER_DIR: string = assetPath("fixtures/tokenizers/qwen3");
