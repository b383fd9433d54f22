#!/usr/bin/env python3
"""compaction-bench adapter: lean-ctx's transcript compaction as an outside engine, two ways.

    LEANCTX_URL=http://127.0.0.1:PORT LEANCTX_TOKEN=... engines run --engine lean-ctx
    LEAN_CTX_PLUGIN_DIR=.../lean-ctx/integrations/hermes-lean-ctx engines run --engine lean-ctx

With `LEAN_CTX_PLUGIN_DIR` (and no `LEANCTX_URL`): the Hermes plugin's own deterministic local-fallback
compaction (pure Python; see `local_fallback`), the row labelled `lean-ctx (local fallback)`. With
`LEANCTX_URL`, the daemon:

Speaks the daemon's HTTP `/v1` contract (standard library only): `GET /health`, then
`POST /v1/tools/call` with `{"name": "ctx_transcript_compact", "arguments": {"messages": [...],
"fresh_tail_tokens": N, "protect_min_messages": M}}` and `Authorization: Bearer $LEANCTX_TOKEN`. The
tool's result (an MCP result whose text blocks hold `{"messages": [...], "stats": {...}}`) is the window.
The fresh tail it keeps verbatim is given TAIL_SHARE of the budget (the rest is left for the
system prompt and lean-ctx's summary).

Neither variable, a daemon that does not answer, or a daemon without the tool is a skip
(`{"skipped": reason}`), never a fake result; a failed compaction is a failure (exit 1).
"""

import dataclasses
import json
import logging
import os
import sys
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

sys.dont_write_bytecode = True  # never leave __pycache__ in the checkout (or in a Hermes one)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_engine_io import (  # noqa: E402
    engine_tools,
    fail,
    fresh_home,
    load_plugin_package,
    reply,
    reply_with_engine,
    serve,
    skip,
    stdout_to_stderr,
    timed,
)

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


PLUGIN_PACKAGE = "hermes_lean_ctx"


def load_plugin(directory: str) -> Tuple[Any, Any]:
    """The plugin's `LeanCtxConfig` and `LeanCtxEngine`, loaded as a package from its folder."""
    if not os.path.isfile(os.path.join(directory, "__init__.py")) or not all(
        os.path.isfile(os.path.join(directory, name)) for name in ("compaction.py", "config.py", "engine.py")
    ):
        skip(f"LEAN_CTX_PLUGIN_DIR {directory} is not lean-ctx's integrations/hermes-lean-ctx folder "
             "(no __init__.py, compaction.py, config.py and engine.py there)")
    config, engine = load_plugin_package(PLUGIN_PACKAGE, directory, f"the lean-ctx plugin in {directory}")
    return config.LeanCtxConfig, engine.LeanCtxEngine


def local_fallback(req: Dict[str, Any], plugin: Tuple[Any, Any]) -> None:
    """The plugin's own deterministic local compaction (`LeanCtxEngine` with the daemon path off), no daemon.

    With `context_length` in the request (`--context-length N`) the engine is told the host's context window
    as its Hermes host tells it, and keeps what its own defaults keep (a fresh tail of max(2,000, 25% of N)).
    With a budget alone, it keeps a verbatim fresh tail of TAIL_SHARE of the budget (at least
    PROTECT_MIN_MESSAGES messages, on tool-call block boundaries) and replaces the older turns by its digest.
    The daemon is never reached: its core compaction is switched off and its address points nowhere (port 9),
    so the turns the plugin would offload stay here. A fresh engine and HERMES_HOME per call; only the
    engine's `compress` is timed. lean-ctx catches its own failures and returns the input unchanged: such a
    logged failure fails the call instead of reading as a result.
    """
    hermes_home = fresh_home("cb-lean-ctx-home-")
    failures: List[str] = []

    class Watch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if "compress() failed" in message:
                failures.append(" ".join(message.split())[:400])

    watch = Watch(level=logging.WARNING)
    logging.getLogger().addHandler(watch)
    config_class, engine_class = plugin
    try:
        with stdout_to_stderr():
            budget = req["budget_tokens"]
            context_length = req.get("context_length")
            try:
                if context_length is not None:
                    config = dataclasses.replace(
                        config_class.from_env(), context_length=context_length, use_core_compaction=False
                    )
                else:
                    tail = max(1, int(budget * TAIL_SHARE))
                    config = dataclasses.replace(
                        config_class.from_env(),
                        context_length=max(2 * budget, 1),
                        protect_fraction=TAIL_SHARE / 2,
                        protect_min_tokens=tail,
                        protect_min_messages=PROTECT_MIN_MESSAGES,
                        use_core_compaction=False,
                    )
                engine = engine_class(config=config, hermes_home=hermes_home)
                out = timed(lambda: engine.compress(req["messages"], current_tokens=req["current_tokens"]))
                tools = engine_tools(engine)
            except Exception as error:
                fail(f"lean-ctx local fallback failed: {type(error).__name__}: {error}")
    finally:
        logging.getLogger().removeHandler(watch)
    if failures:
        fail(f"lean-ctx local fallback: {failures[0]}")
    # The plugin's own recall tools (ctx_search, ctx_expand, …), served by the same engine. They ask the
    # daemon, which the local fallback never reaches: each call answers the plugin's own error string.
    reply_with_engine(out, engine, tools)


def daemon(req: Dict[str, Any], base: str, token: str) -> None:
    """One compaction by the daemon's `ctx_transcript_compact` tool (the module notes)."""
    try:
        request(base, token, "GET", "/health")
    except (urllib.error.URLError, OSError, ValueError) as error:
        skip(f"lean-ctx daemon unreachable at {base}: {getattr(error, 'reason', error)}")
    tail_tokens = (max(2_000, int(req["context_length"] * 0.25)) if req.get("context_length") is not None
                   else max(1, int(req["budget_tokens"] * TAIL_SHARE)))
    arguments = {
        "messages": req["messages"],
        "fresh_tail_tokens": tail_tokens,
        "protect_min_messages": PROTECT_MIN_MESSAGES,
    }
    try:
        raw = timed(lambda: request(base, token, "POST", "/v1/tools/call", {"name": TOOL, "arguments": arguments}))
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


def main() -> None:
    base = os.environ.get("LEANCTX_URL", "").strip().rstrip("/")
    token = os.environ.get("LEANCTX_TOKEN", "").strip()
    if not base:
        directory = os.environ.get("LEAN_CTX_PLUGIN_DIR", "").strip()
        if not directory:
            skip("lean-ctx not configured: set LEANCTX_URL (and LEANCTX_TOKEN) to a running lean-ctx daemon, or "
                 "LEAN_CTX_PLUGIN_DIR to the integrations/hermes-lean-ctx folder of a lean-ctx checkout (its "
                 "local-fallback compaction, no daemon)")
        # The plugin's configuration reads these when each call's config is built: the daemon path stays off.
        os.environ["LEANCTX_CORE_COMPACTION"] = "0"
        os.environ["LEANCTX_BASE_URL"] = "http://127.0.0.1:9"
        os.environ.pop("LEANCTX_TOKEN", None)
        # Loading the plugin (its imports) is the worker's start-up, never a compress call's time.
        with stdout_to_stderr():
            plugin = load_plugin(directory)
        version = str(getattr(sys.modules.get(PLUGIN_PACKAGE), "__version__", "unknown"))
        serve(lambda req: local_fallback(req, plugin), "lean-ctx (local fallback)", f"hermes-lean-ctx {version}")
    serve(lambda req: daemon(req, base, token), "lean-ctx (daemon)", "unknown")


if __name__ == "__main__":
    main()
