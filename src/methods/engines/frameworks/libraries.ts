/**
 * The framework libraries the `langchain-*` and `llamaindex-*` engines run, as pinned in deno.json (and
 * locked in deno.lock): their npm names and versions, shown in every row label and in results.json. A test
 * checks that these are the versions deno.json imports.
 *
 * @module
 */

/** One npm library an engine runs, at the version deno.json pins. */
export interface FrameworkLibrary {
  /** The npm package name. */
  name: string;
  /** The exact version deno.json imports. */
  version: string;
}

/** `@langchain/core`: `trimMessages` and the message classes. */
export const LANGCHAIN_CORE: FrameworkLibrary = { name: "@langchain/core", version: "1.4.0" };
/** `langchain`: `summarizationMiddleware`. */
export const LANGCHAIN: FrameworkLibrary = { name: "langchain", version: "1.5.14" };
/** `@llamaindex/core`: `ChatSummaryMemoryBuffer`. */
export const LLAMAINDEX_CORE: FrameworkLibrary = { name: "@llamaindex/core", version: "0.6.23" };

/** How a row names its libraries: `name version`, joined with `, `. */
export function libraryLabel(libraries: readonly FrameworkLibrary[]): string {
  return libraries.map((library) => `${library.name} ${library.version}`).join(", ");
}
