/**
 * The collection checks read real tools: sessions whose reads carry Hermes Agent's exact `read_file` framing
 * (`%6d|` lines, the empty numbered line after each page's last newline, `truncated` and the `offset=K` hint,
 * 500-line pages, `... [truncated]` on a cut line) pass when every line was shown unaltered, and fail with the
 * named reason when a page is missing, a line is altered or redacted, or a read was truncated. The table of
 * known tools, and the generic reading of other tools, are tested on their own.
 */
import assert from "node:assert/strict";
import type { HotpotRecord } from "../src/data/hotpot_record.ts";
import type { ChatMessage } from "../src/models/messages.ts";
import {
  checkCollection,
  type Collection,
  framingOf,
  KNOWN_READ_TOOLS,
  unframeRead,
} from "../src/suites/hotpot/collect/collection_checks.ts";
import { workspaceFiles } from "../src/suites/hotpot/workspace.ts";

const LONG = Array.from({ length: 1203 }, (_, i) => `Sentence ${i + 1} of the long article, with | a bar.`);
const SHORT = ["Beta was founded in 1901.", "Its key is sk-abcdefghijklmnopqrstuvwxyz123456 in the story."];

const RECORD: HotpotRecord = {
  id: "q-framing",
  question: "What was founded in 1901?",
  answer: "Beta",
  type: "bridge",
  level: "easy",
  supporting_facts: [{ title: "Beta", sent_id: 0 }],
  context: [{ title: "Long Article", sentences: LONG }, { title: "Beta", sentences: SHORT }],
};
const [LONG_FILE, SHORT_FILE] = workspaceFiles(RECORD.context).map((f) => f.path);

/** Hermes 0.14's read_file result, as tools/file_tools.py + file_operations.py build it. */
function hermesResult(
  lines: readonly string[],
  offset = 1,
  limit = 500,
  edit?: (text: string) => string,
): string {
  const end = offset + limit - 1;
  const shown = lines.slice(offset - 1, end);
  const sedOutput = shown.map((line) => `${line}\n`).join(""); // sed -n 'a,bp' keeps every newline
  let content = sedOutput.split("\n").map((line, i) => {
    const cut = line.length > 2000 ? line.slice(0, 2000) + "... [truncated]" : line;
    return `${String(offset + i).padStart(6, " ")}|${cut}`;
  }).join("\n");
  if (edit) content = edit(content);
  const truncated = lines.length > end;
  return JSON.stringify({
    content,
    total_lines: lines.length,
    file_size: 1,
    truncated,
    ...(truncated
      ? {
        hint: `Use offset=${end + 1} to continue reading (showing ${offset}-${end} of ${lines.length} lines)`,
      }
      : {}),
    is_binary: false,
    is_image: false,
  });
}

function read(id: string, args: Record<string, unknown>, result: string): ChatMessage[] {
  return [
    {
      role: "assistant",
      content: "",
      tool_calls: [{
        id,
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify(args) },
      }],
    },
    { role: "tool", tool_call_id: id, content: result },
  ];
}

function session(reads: ChatMessage[][]): Collection {
  return {
    question_id: RECORD.id,
    source: "agent",
    messages: [
      { role: "system", content: "You are Hermes Agent." },
      { role: "user", content: "Read every file." },
      ...reads.flat(),
    ],
    final_answer: "Beta",
    hashes_before: null,
    hashes_after: null,
  };
}

const PAGE_1 = read("call_1", { path: LONG_FILE }, hermesResult(LONG));
const PAGE_2 = read("call_2", { path: LONG_FILE, offset: 501 }, hermesResult(LONG, 501));
const PAGE_3 = read("call_3", { path: LONG_FILE, offset: 1001 }, hermesResult(LONG, 1001));
const SHORT_READ = read("call_4", { path: SHORT_FILE }, hermesResult(SHORT));

function reasonOf(collection: Collection): string {
  const check = checkCollection(collection, RECORD);
  return check.valid ? "" : check.reason;
}

Deno.test("a file read in Hermes' 500-line pages, framing and page-end newlines removed, counts as read whole", () => {
  assert.deepEqual(checkCollection(session([PAGE_1, PAGE_2, PAGE_3, SHORT_READ]), RECORD), {
    valid: true,
    files_unchanged: "not verifiable",
  });
  // The same pages with Hermes' repeated-read stub and a re-read in between still pass.
  const stub = read(
    "call_9",
    { path: LONG_FILE },
    JSON.stringify({ status: "unchanged", content_returned: false }),
  );
  assert.equal(reasonOf(session([PAGE_1, stub, PAGE_2, PAGE_3, SHORT_READ])), "");
});

Deno.test("a missing page is named: the read that said more follows, and the lines no read showed", () => {
  assert.equal(
    reasonOf(session([PAGE_1, PAGE_3, SHORT_READ])),
    'article "Long Article" (long_article.txt) not read whole: lines 501-1000 never shown ' +
      "(missing page: read call_1 said more follows from line 501, and no read showed it)",
  );
  assert.match(
    reasonOf(session([PAGE_1, PAGE_2, SHORT_READ])),
    /lines 1001-1203 never shown \(missing page: read call_2/,
  );
});

Deno.test("an altered or redacted line is named with its read and line number", () => {
  const altered = read(
    "call_2",
    { path: LONG_FILE, offset: 501 },
    hermesResult(LONG, 501, 500, (text) => text.replace("Sentence 777 of", "Sentence 778 of")),
  );
  assert.equal(
    reasonOf(session([PAGE_1, altered, PAGE_3, SHORT_READ])),
    "read call_2 of long_article.txt shows line 777 redacted or altered; " +
      'article "Long Article" (long_article.txt) not read whole: line 777 never shown',
  );
  // Hermes' redact_sensitive_text masks key-looking text as prefix...suffix.
  const redacted = read(
    "call_4",
    { path: SHORT_FILE },
    hermesResult(
      SHORT,
      1,
      500,
      (text) => text.replace("sk-abcdefghijklmnopqrstuvwxyz123456", "sk-abc...3456"),
    ),
  );
  assert.match(
    reasonOf(session([PAGE_1, PAGE_2, PAGE_3, redacted])),
    /read call_4 of beta\.txt shows line 2 redacted or altered/,
  );
});

Deno.test("a truncated read is named: a line the tool cut, a page cut short", () => {
  const longLine = [SHORT[0], "x".repeat(2500)];
  const record: HotpotRecord = { ...RECORD, context: [{ title: "Beta", sentences: longLine }] };
  const cut = session([read("call_1", { path: SHORT_FILE }, hermesResult(longLine))]);
  const check = checkCollection(cut, record);
  assert.equal(
    check.valid ? "" : check.reason,
    "read call_1 of beta.txt shows line 2 cut short (truncated read); " +
      'article "Beta" (beta.txt) not read whole: line 2 never shown (truncated read: the tool cut a line)',
  );
  const short = read("call_1", { path: LONG_FILE, limit: 3 }, hermesResult(LONG, 1, 3));
  assert.match(
    reasonOf(session([short, SHORT_READ])),
    /lines 4-1203 never shown \(missing page: read call_1 said more follows from line 4, and no read showed it\)/,
  );
});

Deno.test("lines shown out of order within a page are named", () => {
  const swapped = read(
    "call_4",
    { path: SHORT_FILE },
    JSON.stringify({
      content: `     2|${SHORT[1]}\n     1|${SHORT[0]}\n     3|`,
      truncated: false,
    }),
  );
  assert.match(
    reasonOf(session([PAGE_1, PAGE_2, PAGE_3, swapped])),
    /shows line 1 after line 2 \(lines out of order\)/,
  );
});

Deno.test("the table of known tools and the generic reading of other tools", () => {
  assert.deepEqual(KNOWN_READ_TOOLS.map((tool) => tool.names), [["read_file"]]);
  assert.equal(framingOf("write_file"), undefined, "a tool whose name does not read is no read");
  assert.equal(framingOf("search_files"), undefined);
  assert.equal(unframeRead("read_file", '{"pattern": "x"}', "1|a"), undefined, "no path, no read");
  assert.deepEqual(unframeRead("read_file", '{"path": "a.txt"}', '{"error": "File not found: a.txt"}'), {
    path: "a.txt",
    lines: [],
    error: "File not found: a.txt",
  });
  assert.deepEqual(
    unframeRead("read_file", '{"path": "a.txt", "offset": 3}', hermesResult(["a", "b", "c", "d"], 3)),
    {
      path: "a.txt",
      lines: [{ line: 3, text: "c", cut: false }, { line: 4, text: "d", cut: false }],
    },
  );
  // Another agent's reader: `file_path`, `N→text` lines; or plain text from its offset.
  assert.deepEqual(unframeRead("Read", '{"file_path": "/w/a.txt"}', "     1→alpha\n     2→beta"), {
    path: "/w/a.txt",
    lines: [{ line: 1, text: "alpha", cut: false }, { line: 2, text: "beta", cut: false }],
  });
  assert.deepEqual(unframeRead("open_document", '{"file_path": "a.txt", "offset": 5}', "gamma\ndelta\n"), {
    path: "a.txt",
    lines: [{ line: 5, text: "gamma", cut: false }, { line: 6, text: "delta", cut: false }],
  });
  assert.deepEqual(
    unframeRead(
      "view_file",
      '{"path": "a.txt"}',
      JSON.stringify({ text: "1|x", truncated: true, hint: "offset=2" }),
    ),
    { path: "a.txt", lines: [{ line: 1, text: "x", cut: false }], more: { continueAt: 2 } },
  );
});
