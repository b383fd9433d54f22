"""Stand-in of the plugin's compaction.py (tests only): a fresh tail of about `protect_tokens` (4 characters a
token), at least `protect_min_messages`, never starting on a tool result; the rest replaced by one marker."""
SUMMARY_MARKER = "[lean-ctx] compacted-context"


def compact(messages, protect_tokens, protect_min_messages):
    head = [m for m in messages[:1] if m.get("role") == "system"]
    body = messages[len(head):]
    start, kept = len(body), 0
    while start > 0 and (kept < protect_tokens * 4 or len(body) - start < protect_min_messages):
        start -= 1
        kept += len(str(body[start].get("content") or ""))
    while 0 < start < len(body) and body[start].get("role") == "tool":
        start -= 1
    summary = {"role": "system", "content": f"## {SUMMARY_MARKER}\n{start} earlier messages offloaded."}
    return head + ([summary] if start > 0 else []) + body[start:]
