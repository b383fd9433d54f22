/**
 * The framework engines: each a real npm library's own compaction run in-process (kind `library`), its
 * libraries and versions in every row label. A library loads when its engine first compresses (LlamaIndex
 * alone takes over a second), so a run that names none never pays for it.
 *
 * @module
 */
import type { ChatModel } from "../../../models/types.ts";
import type { CompressOptions, CompressResult, ContextEngine } from "../engine.ts";
import type { ChatMessage } from "../../../models/messages.ts";

/** The libraries the framework engines run, at the versions deno.json pins (a test checks them). */
export const LANGCHAIN_CORE = { name: "@langchain/core", version: "1.4.0" };
export const LANGCHAIN = { name: "langchain", version: "1.5.14" };
export const LLAMAINDEX_CORE = { name: "@llamaindex/core", version: "0.6.23" };

/** How a row names its libraries: `name version`, joined with `, `. */
function libraryLabel(libraries: readonly { name: string; version: string }[]): string {
  return libraries.map((library) => `${library.name} ${library.version}`).join(", ");
}

/** One framework engine: its libraries (`name version`), its budget `note`, and how to load its compress call. */
interface FrameworkEngine {
  library: string;
  note?: string;
  needsChat: boolean;
  load(
    chat: ChatModel | undefined,
  ): Promise<(messages: ChatMessage[], opts: CompressOptions) => Promise<CompressResult>>;
}

/** The framework engines by spec, in report order. */
export const FRAMEWORK_ENGINES: Readonly<Record<string, FrameworkEngine>> = {
  "langchain-trim": {
    library: libraryLabel([LANGCHAIN_CORE]),
    needsChat: false,
    load: async () => (await import("./langchain.ts")).langchainTrim,
  },
  "langchain-summary": {
    library: libraryLabel([LANGCHAIN, LANGCHAIN_CORE]),
    note: "keep.tokens is half the budget; LangChain keeps tool pairs whole past it",
    needsChat: true,
    load: async (chat) => {
      const { langchainSummary } = await import("./langchain.ts");
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
  const loaded = () => compress ??= entry.load(chat);
  return {
    kind: "library",
    name,
    library: entry.library,
    ...(entry.note !== undefined ? { note: entry.note } : {}),
    prepare: async () => void await loaded(),
    // An input that fits is the window: no library call.
    compress: async (messages, opts) =>
      opts.currentTokens <= opts.budgetTokens
        ? { messages: [...messages] }
        : (await loaded())(messages, opts),
  };
}
