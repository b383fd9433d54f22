/**
 * Whether LangSmith tracing is switched on in this process's environment: LangChain then sends every model
 * call (here: the transcript) to LangSmith, so the engines that call a model through LangChain refuse.
 *
 * @module
 */

/** The variables that switch LangChain's tracing on when set to `true` (as `@langchain/core` reads them). */
export const LANGCHAIN_TRACING_VARIABLES = [
  "LANGSMITH_TRACING_V2",
  "LANGCHAIN_TRACING_V2",
  "LANGSMITH_TRACING",
  "LANGCHAIN_TRACING",
] as const;

/** The first tracing variable set to `true`, or null (also when the environment cannot be read). */
export function langchainTracingVariable(): string | null {
  for (const name of LANGCHAIN_TRACING_VARIABLES) {
    try {
      if (Deno.env.get(name) === "true") return name;
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
        return null;
      }
      throw error;
    }
  }
  return null;
}
