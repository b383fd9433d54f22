#!/usr/bin/env python3
"""compaction-bench adapter: hermes-lcm (Lossless Context Management, a Hermes Agent plugin) as an engine.

    engines run --engine hermes-lcm [--hermes DIR]

Loads the plugin package from `$HERMES_LCM_DIR` (a hermes-lcm checkout: `__init__.py`, `config.py`,
`engine.py`) with Hermes Agent on the import path (`--hermes DIR` or `$HERMES_AGENT_DIR`, which the plugin
imports `agent.context_engine` from), builds `LCMEngine(config=LCMConfig.from_env(), hermes_home=...)` as
its `register()` does, with its store in a throw-away home, starts a session, tells it the host's context
length (`update_model`, with `--context-length`) or else the budget where the engine has the attributes
(context length and trigger threshold) and calls `compress(messages, current_tokens=...)`, timed alone. It
replies with the window and the engine's own recall tools (`get_tool_schemas()`: `lcm_grep`, `lcm_expand`, …)
and serves their calls through `handle_tool_call` from the same engine until the run releases it. A worker
(docs/WORKER_PROTOCOL.md): the plugin is loaded once, at start-up; every request gets a fresh engine and store.

Its summarizer calls Hermes' auxiliary client (task `compression`): the adapter points it at the chat
endpoint `engines run` hands every outside engine (`LLM_BASE_URL`, the call's token as `LLM_API_KEY`,
`LLM_MODEL`) through `auxiliary.compression` in the throw-away HERMES_HOME's `config.yaml`, as for `hermes`.
When hermes-lcm logs that its summarizer reached no model ("No LLM provider configured", "LLM summarization
failed"), the call fails with that reason instead of returning its degraded, summary-less window.

A missing checkout or an import error is a skip (`{"skipped": reason}`), never a fake result; an
exception inside the engine is a failure (exit 1).
"""

import argparse
import hashlib
import json
import logging
import os
import sys
from typing import Any, Dict

sys.dont_write_bytecode = True  # never leave __pycache__ in the checkout (or in a Hermes one)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_engine_io import (  # noqa: E402
    SummarizerWatch,
    chat_endpoint,
    engine_tools,
    fail,
    fresh_home,
    load_plugin_package,
    plugin_version,
    reply_with_engine,
    serve,
    skip,
    stdout_to_stderr,
    timed,
    write_hermes_compression_config,
)

PACKAGE = "hermes_lcm"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="hermes-lcm as a compaction-bench engine")
    parser.add_argument("--hermes", help="Hermes Agent checkout (default: $HERMES_AGENT_DIR)")
    parser.add_argument("--lcm", help="hermes-lcm checkout (default: $HERMES_LCM_DIR)")
    parser.add_argument("--model", default=os.environ.get("LLM_MODEL", ""), help="chat model of its summarizer")
    return parser.parse_args()


def load_plugin(directory: str, hermes: str) -> Any:
    if hermes:
        sys.path.insert(0, hermes)
    init = os.path.join(directory, "__init__.py")
    if not os.path.isfile(init) or not os.path.isfile(os.path.join(directory, "engine.py")):
        skip(f"hermes-lcm not found in {directory}: no __init__.py and engine.py there")
    config_module, engine_module = load_plugin_package(PACKAGE, directory, f"hermes-lcm in {directory}")
    return config_module.LCMConfig, engine_module.LCMEngine


def tell_context_length(engine: Any, model: str, context_length: int) -> None:
    """Tells the engine the host's context window as Hermes does (`update_model`, else `context_length`)."""
    if hasattr(engine, "update_model"):
        try:
            engine.update_model(model, context_length)
            return
        except TypeError:
            pass
    if hasattr(engine, "context_length"):
        engine.context_length = context_length


def tell_budget(engine: Any, model: str, budget: int) -> None:
    if hasattr(engine, "update_model"):
        try:
            engine.update_model(model, max(2 * budget, 1))
        except TypeError:
            pass
    for name, value in (("context_length", max(2 * budget, 1)), ("threshold_tokens", budget)):
        if hasattr(engine, name):
            setattr(engine, name, value)


def compress_one(request: Dict[str, Any], plugin: Any, model_arg: str) -> None:
    """One compaction by a fresh engine over a fresh store (a throw-away HOME); only `compress` is timed."""
    config_class, engine_class = plugin
    base_url, api_key, endpoint_model = chat_endpoint()
    model = model_arg or endpoint_model
    # A throw-away HOME/HERMES_HOME per call: its SQLite store starts empty every time. Its summaries go
    # through Hermes' auxiliary client, task "compression", pointed at the endpoint by config.yaml.
    hermes_home = fresh_home("cb-hermes-lcm-home-")
    if base_url:
        write_hermes_compression_config(hermes_home, base_url, api_key or "none", model)
    watch = SummarizerWatch().install()
    try:
        with stdout_to_stderr():
            try:
                config = config_class.from_env() if hasattr(config_class, "from_env") else config_class()
                engine = engine_class(config=config, hermes_home=hermes_home)
                if hasattr(engine, "on_session_start"):
                    # Every call has a fresh home, so a session id derived from the request keeps equal calls equal.
                    digest = hashlib.sha256(
                        json.dumps({k: v for k, v in request.items() if k not in ("env", "id")}, sort_keys=True)
                        .encode("utf-8")).hexdigest()
                    engine.on_session_start(f"compaction-bench-{digest[:12]}")
                if request.get("context_length") is not None:
                    tell_context_length(engine, model, request["context_length"])
                else:
                    tell_budget(engine, model, request["budget_tokens"])
                out = timed(lambda: engine.compress(request["messages"], current_tokens=request["current_tokens"]))
                tools = engine_tools(engine)
            except Exception as error:
                fail(f"hermes-lcm failed: {type(error).__name__}: {error}")
        watch.check("hermes-lcm")
    finally:
        logging.getLogger().removeHandler(watch)
    # Its recall tools (lcm_grep, lcm_expand, …) are served by this same engine, over what it compacted.
    reply_with_engine(out, engine, tools)


def main() -> None:
    args = parse_args()
    directory = args.lcm or os.environ.get("HERMES_LCM_DIR", "")
    if not directory:
        skip("hermes-lcm not found: set HERMES_LCM_DIR to a hermes-lcm checkout")
    hermes = args.hermes or os.environ.get("HERMES_AGENT_DIR", "")
    # Loading the plugin (and Hermes under it) is the worker's start-up, never a compress call's time.
    with stdout_to_stderr():
        plugin = load_plugin(directory, hermes)
    version = str(getattr(sys.modules.get(PACKAGE), "__version__", "") or plugin_version(directory))
    serve(lambda request: compress_one(request, plugin, args.model), "hermes-lcm", f"hermes-lcm {version}")


if __name__ == "__main__":
    main()
