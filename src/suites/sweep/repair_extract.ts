/**
 * Finding the repair in an answer: the last fenced ```js block defining the required function.
 * @module
 */

const FENCE = /```[ \t]*(js|javascript|mjs)[ \t]*\r?\n([\s\S]*?)```/gi;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The repair source defining `async function <name>(client, request)`, leading `export` (`default`) removed:
 * the block runs as a script.
 */
export function extractRepair(
  answer: string,
  functionName = "chargeWithRetry",
  params: readonly [string, string] = ["client", "request"],
): { ok: true; source: string } | { ok: false; error: string } {
  const [client, input] = params.map(escapeRegExp);
  const signature = new RegExp(
    `async\\s+function\\s+${escapeRegExp(functionName)}\\s*\\(\\s*${client}\\s*,\\s*${input}\\s*\\)`,
  );
  const blocks = [...answer.matchAll(FENCE)].map((match) => match[2]);
  if (blocks.length === 0) return { ok: false, error: "the answer has no ```js code block" };
  const defining = blocks.filter((block) => signature.test(block));
  if (defining.length === 0) {
    return {
      ok: false,
      error: `no \`\`\`js block defines async function ${functionName}(${
        params.join(", ")
      }) (${blocks.length} js blocks)`,
    };
  }
  const source = defining[defining.length - 1].replace(
    /^([ \t]*)export\s+(default\s+)?(?=(async\s+)?function|const|let|class)/gm,
    "$1",
  );
  return { ok: true, source };
}
