"""Shared plumbing of the compaction-bench outside-engine adapters (standard library only).

An adapter reads one request from stdin, `{"messages": [...], "budget_tokens": N, "current_tokens": N}`,
and writes one reply to stdout: `{"messages": [...]}` when it compacted the window, or
`{"skipped": "reason"}` when the engine it wraps cannot run here (its package or daemon is missing).
A skip is never a measurement and never a crash: the run records the row as `skipped: reason`.
Anything that goes wrong inside the wrapped engine is a failure: a message on stderr and exit code 1.
"""

import json
import sys
from typing import Any, Dict, List, NoReturn

# The public chat fields an OpenAI message may carry; everything else (an engine's own metadata such as
# Hermes' underscore keys, timestamps) is dropped from the reply.
_MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name")
_ROLES = ("system", "user", "assistant", "tool")


def read_request() -> Dict[str, Any]:
    """Reads and checks the request on stdin; a malformed one is a failure (exit 1)."""
    try:
        request = json.load(sys.stdin)
    except ValueError as error:
        fail(f"the request on stdin is not JSON: {error}")
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        fail("the request on stdin has no 'messages' list")
    for key in ("budget_tokens", "current_tokens"):
        if not isinstance(request.get(key), int) or request[key] < 0:
            fail(f"the request on stdin has no whole number '{key}'")
    return request


def skip(reason: str) -> NoReturn:
    """Replies that the engine cannot run here, and exits 0."""
    json.dump({"skipped": " ".join(reason.split())[:1900]}, sys.stdout)
    sys.stdout.flush()
    sys.exit(0)


def fail(reason: str) -> NoReturn:
    """Reports a failure of the wrapped engine on stderr, and exits 1."""
    sys.stderr.write(reason.rstrip() + "\n")
    sys.exit(1)


def _text(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content)


def _tool_call(call: Any) -> Dict[str, Any]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        fail(f"the engine returned a malformed tool call: {json.dumps(call)[:200]}")
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": str(call.get("id", "")),
        "type": "function",
        "function": {"name": str(function.get("name", "")), "arguments": arguments},
    }


def clean_messages(messages: Any) -> List[Dict[str, Any]]:
    """The engine's output as plain OpenAI messages (public fields only, text content)."""
    if not isinstance(messages, list):
        fail(f"the engine returned {type(messages).__name__}, not a message list")
    out = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            fail(f"the engine returned a malformed message at index {index}")
        clean = {key: message[key] for key in _MESSAGE_FIELDS if key in message and message[key] is not None}
        clean["content"] = _text(message.get("content"))
        if "tool_calls" in clean:
            calls = [_tool_call(call) for call in clean["tool_calls"] or []]
            if calls:
                clean["tool_calls"] = calls
            else:
                del clean["tool_calls"]
        out.append(clean)
    return out


def reply(messages: Any) -> NoReturn:
    """Writes the compacted window and exits 0."""
    json.dump({"messages": clean_messages(messages)}, sys.stdout, ensure_ascii=False)
    sys.stdout.flush()
    sys.exit(0)
