/**
 * The framework engines: each a real npm library's own compaction run in-process (kind `library`), its
 * libraries and versions in every row label. The libraries load when an engine first compresses (importing
 * LlamaIndex alone takes over a second), so a run that names none of them never pays for them.
 *
 * @module
 */
import type { ChatModel } from "../../../models/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "../engine.ts";
import type { ChatMessage } from "../../../models/messages.ts";
import { LANGCHAIN, LANGCHAIN_CORE, libraryLabel, LLAMAINDEX_CORE } from "./libraries.ts";

/** One framework engine: what it runs, what it needs, and how to load its compress call. */
export interface FrameworkEngine {
  /** The libraries it runs, `name version`. */
  library: string;
  /** How it meets the budget where that is not this program's exact count (see ContextEngine.note). */
  note?: string;
  /** True when it calls the chat model. */
  needsChat: boolean;
  /** Loads the library and gives the compress call (with `chat` when {@link needsChat}). */
  load(
    chat: ChatModel | undefined,
  ): Promise<(messages: ChatMessage[], opts: CompressOptions) => Promise<CompressResult>>;
}

/** The framework engines by spec, in report order. */
export const FRAMEWORK_ENGINES: Readonly<Record<string, FrameworkEngine>> = {
  "langchain-trim": {
    library: libraryLabel([LANGCHAIN_CORE]),
    needsChat: false,
    load: async () => (await import("../langchain_trim.ts")).langchainTrim,
  },
  "langchain-summary": {
    library: libraryLabel([LANGCHAIN, LANGCHAIN_CORE]),
    note: "keep.tokens is half the budget; LangChain keeps tool pairs whole past it",
    needsChat: true,
    load: async (chat) => {
      const { langchainSummary } = await import("../langchain_summary.ts");
      return (messages, opts) => langchainSummary(chat!, messages, opts);
    },
  },
  "llamaindex-summary": {
    library: libraryLabel([LLAMAINDEX_CORE]),
    note: "LlamaIndex counts message text, not the chat template, against the budget",
    needsChat: true,
    load: async (chat) => {
      const { llamaindexSummary } = await import("../llamaindex_summary.ts");
      return (messages, opts) => llamaindexSummary(chat!, messages, opts);
    },
  },
};

/** The engine `spec` of {@link FRAMEWORK_ENGINES}, shown as `name`. */
export function createFrameworkEngine(
  spec: string,
  name: string,
  chat: ChatModel | undefined,
): ContextEngine {
  const entry = FRAMEWORK_ENGINES[spec];
  let compress: ReturnType<FrameworkEngine["load"]> | undefined;
  return {
    kind: "library",
    name,
    library: entry.library,
    ...(entry.note !== undefined ? { note: entry.note } : {}),
    async prepare() {
      compress ??= entry.load(chat);
      await compress;
    },
    async compress(messages, opts) {
      compress ??= entry.load(chat);
      return (await compress)(messages, opts);
    },
  };
}
