#!/usr/bin/env python3
"""compaction-bench adapter: the lean-ctx daemon's transcript compaction as an outside engine.

    LEANCTX_URL=http://127.0.0.1:PORT LEANCTX_TOKEN=... engines run --engine lean-ctx

Speaks the daemon's HTTP `/v1` contract (standard library only): `GET /health`, then
`POST /v1/tools/call` with `{"name": "ctx_transcript_compact", "arguments": {"messages": [...],
"fresh_tail_tokens": N, "protect_min_messages": M}}` and `Authorization: Bearer $LEANCTX_TOKEN`. The
tool's result (an MCP result whose text blocks hold `{"messages": [...], "stats": {...}}`) is the window.
The fresh tail it keeps verbatim is given TAIL_SHARE of the budget (the rest is left for the
system prompt and lean-ctx's summary).

No `LEANCTX_URL`, a daemon that does not answer, or a daemon without the tool is a skip
(`{"skipped": reason}`), never a fake result; a failed compaction is a failure (exit 1).
"""

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any, Dict, Optional

sys.dont_write_bytecode = True  # never leave __pycache__ in the checkout (or in a Hermes one)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_engine_io import fail, read_request, reply, skip  # noqa: E402

TOOL = "ctx_transcript_compact"
# Share of the budget given to the verbatim fresh tail.
TAIL_SHARE = 0.6
PROTECT_MIN_MESSAGES = 4
TIMEOUT_SECONDS = 50.0


def request(base: str, token: str, method: str, path: str, body: Optional[Dict[str, Any]] = None) -> bytes:
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(req, timeout=TIMEOUT_SECONDS) as response:
        return response.read()


def result_text(result: Any) -> str:
    """The text of an MCP tool result: its text blocks joined, or the result itself when it is a string."""
    if isinstance(result, str):
        return result
    if isinstance(result, dict) and isinstance(result.get("content"), list):
        return "".join(
            block["text"] for block in result["content"]
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
    return ""


def main() -> None:
    req = read_request()
    base = os.environ.get("LEANCTX_URL", "").strip().rstrip("/")
    token = os.environ.get("LEANCTX_TOKEN", "").strip()
    if not base:
        skip("lean-ctx daemon not configured: set LEANCTX_URL (and LEANCTX_TOKEN) to a running lean-ctx daemon")
    try:
        request(base, token, "GET", "/health")
    except (urllib.error.URLError, OSError, ValueError) as error:
        skip(f"lean-ctx daemon unreachable at {base}: {getattr(error, 'reason', error)}")
    arguments = {
        "messages": req["messages"],
        "fresh_tail_tokens": max(1, int(req["budget_tokens"] * TAIL_SHARE)),
        "protect_min_messages": PROTECT_MIN_MESSAGES,
    }
    try:
        raw = request(base, token, "POST", "/v1/tools/call", {"name": TOOL, "arguments": arguments})
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", "replace")[:300]
        if error.code == 404:
            skip(f"the lean-ctx daemon at {base} has no {TOOL} tool (HTTP 404): {detail}")
        fail(f"lean-ctx {TOOL}: HTTP {error.code}: {detail}")
    except (urllib.error.URLError, OSError) as error:
        fail(f"lean-ctx {TOOL}: {getattr(error, 'reason', error)}")
    try:
        payload = json.loads(raw.decode("utf-8", "replace"))
        text = result_text(payload.get("result") if isinstance(payload, dict) else None)
        compacted = json.loads(text)
    except ValueError as error:
        fail(f"lean-ctx {TOOL}: the result is not the JSON {{messages, stats}}: {error}")
    if not isinstance(compacted, dict) or not isinstance(compacted.get("messages"), list):
        fail(f"lean-ctx {TOOL}: the result has no 'messages' list")
    reply(compacted["messages"])


if __name__ == "__main__":
    main()
