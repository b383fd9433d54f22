#!/usr/bin/env python3
"""A small outside engine with a recall tool, for tests (the exec+tools: protocol, standard library only).

Its window keeps the leading system messages and the newest K messages (default 6; the cut moved forward so
it never starts on a tool result), so early needles fall out of it. It offers one tool, `recall_search`
({"query": string}), served by this same process from the transcript it compacted: the lines of the dropped
messages that hold every word of the query (lowercase, punctuation ignored), one per line, at most 5.
With `--exit-after-reply` it exits right after its reply (a session that dies before its tool calls).
"""

import json
import re
import sys

k = 6
exit_after_reply = "--exit-after-reply" in sys.argv
for arg in sys.argv[1:]:
    if arg.isdigit():
        k = int(arg)

request = json.loads(sys.stdin.readline())
messages = request["messages"]
head = 0
while head < len(messages) and messages[head]["role"] == "system":
    head += 1
start = max(head, len(messages) - k)
while start < len(messages) and messages[start]["role"] == "tool":
    start += 1
window = messages[:head] + messages[start:]
dropped = messages[head:start]


def words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def search(query):
    wanted = set(words(query))
    hits = []
    for message in dropped:
        for sentence in re.split(r"(?<=\.)\s+", message.get("content") or ""):
            if wanted and wanted <= set(words(sentence)):
                hits.append(sentence.strip())
    return "\n".join(hits[:5]) if hits else "no match"


tools = [{
    "type": "function",
    "function": {
        "name": "recall_search",
        "description": "Search the messages compacted out of the window.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    },
}]
sys.stdout.write(json.dumps({"messages": window, "tools": tools}) + "\n")
sys.stdout.flush()
if exit_after_reply:
    sys.exit(0)
for line in sys.stdin:
    call = json.loads(line)
    if call.get("op") != "tool" or call.get("name") != "recall_search":
        sys.stdout.write(json.dumps({"error": "unknown tool"}) + "\n")
    else:
        sys.stdout.write(json.dumps({"content": search(str(call.get("arguments", {}).get("query", "")))}) + "\n")
    sys.stdout.flush()
