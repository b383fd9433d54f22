#!/usr/bin/env python3
"""A one-shot outside engine for tests, shaped like lean-ctx's window: the leading system prompt, then a
digest of the dropped messages as a second *system* message (their lines that name a NEEDLE-, verbatim),
then the newest K messages (default 4; the cut moved forward so it never starts on a tool result).
Reads one JSON request line, writes one JSON reply, exits."""

import json
import sys

k = int(sys.argv[1]) if len(sys.argv) > 1 else 4
messages = json.loads(sys.stdin.readline())["messages"]
head = 1 if messages and messages[0]["role"] == "system" else 0
start = max(head, len(messages) - k)
while start < len(messages) and messages[start]["role"] == "tool":
    start += 1
facts = [
    line
    for message in messages[head:start]
    for line in str(message.get("content") or "").splitlines()
    if "NEEDLE-" in line
]
digest = {"role": "system", "content": "## Digest of earlier messages\n" + "\n".join(facts)}
print(json.dumps({"messages": messages[:head] + [digest] + messages[start:]}))
