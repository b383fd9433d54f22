#!/usr/bin/env python3
"""compaction-bench adapter: the real Hermes Agent `ContextCompressor` as an outside engine.

    engines run --engine hermes [--hermes DIR]

Imports `agent.context_compressor.ContextCompressor` from a Hermes Agent checkout (`--hermes DIR`, else
`$HERMES_AGENT_DIR`), builds it with the first constructor shape its signature accepts (the documented
shapes, newest first: model + thresholds + base_url/api_key + config_context_length/provider; model +
thresholds + base_url/api_key; model + thresholds), tells it the host's context length as Hermes does
(`update_model`, with `--context-length`) or else the budget (trigger threshold = the budget, protected tail =
Hermes' default share of it) and calls `compress(messages, current_tokens=...)`, timed alone. Its output is
returned with Hermes' private message keys dropped. A worker (docs/WORKER_PROTOCOL.md): Hermes is imported
once, at start-up; every request gets a fresh compressor in a fresh home.

Its summarizer: `engines run` hands every outside engine its loopback chat endpoint (`LLM_BASE_URL`, a token
of the call as `LLM_API_KEY`, `LLM_MODEL`). Hermes 0.14 resolves the summary call through its auxiliary client,
task `compression`, which reads `auxiliary.compression` from `$HERMES_HOME/config.yaml`: the adapter writes
that file (provider `custom`, the endpoint's base_url, api_key and model) in a throw-away HOME/HERMES_HOME of
the call, and passes the same endpoint to the constructor. When Hermes still reports no summary model (its log
"no provider available ... dropped without summary", or `_last_summary_error`), the call fails with that
reason instead of returning Hermes' no-summary fallback as a result. Hermes' own prints go to stderr.

A missing checkout, an import error or a missing chat endpoint is a skip (`{"skipped": reason}`), never a
fake result; an exception inside Hermes is a failure (exit 1).
"""

import argparse
import inspect
import logging
import os
import sys
from typing import Any, Dict, List

sys.dont_write_bytecode = True  # never leave __pycache__ in the checkout (or in a Hermes one)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from outside_engine_io import (  # noqa: E402
    SummarizerWatch,
    chat_endpoint,
    fail,
    fresh_home,
    reply,
    serve,
    skip,
    stdout_to_stderr,
    timed,
    write_hermes_compression_config,
)

# Hermes' own default share of the trigger threshold kept verbatim as the tail.
SUMMARY_TARGET_RATIO = 0.20


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Hermes Agent ContextCompressor as a compaction-bench engine")
    parser.add_argument("--hermes", help="Hermes Agent checkout (default: $HERMES_AGENT_DIR)")
    parser.add_argument("--model", default=os.environ.get("LLM_MODEL", ""), help="chat model of the summarizer")
    return parser.parse_args()


def hermes_dir(args: argparse.Namespace) -> str:
    directory = args.hermes or os.environ.get("HERMES_AGENT_DIR", "")
    if not directory:
        skip("Hermes Agent not found: pass --hermes DIR or set HERMES_AGENT_DIR to a hermes-agent checkout")
    if not os.path.isfile(os.path.join(directory, "agent", "context_compressor.py")):
        skip(f"Hermes Agent not found in {directory}: no agent/context_compressor.py there")
    return directory


def import_compressor(directory: str) -> Any:
    sys.path.insert(0, directory)
    try:
        from agent.context_compressor import ContextCompressor  # type: ignore
    except Exception as error:  # any import failure (missing dependency, syntax) means Hermes cannot run here
        skip(f"Hermes Agent in {directory} cannot be imported: {type(error).__name__}: {error}")
    return ContextCompressor


def constructor_shapes(model: str, budget: int, base_url: str, api_key: str) -> List[Dict[str, Any]]:
    """The documented constructor shapes, newest first."""
    thresholds = {
        "model": model,
        "threshold_percent": 0.5,
        "protect_first_n": 3,
        "protect_last_n": 20,
        "summary_target_ratio": SUMMARY_TARGET_RATIO,
        "quiet_mode": True,
    }
    endpoint = {"base_url": base_url, "api_key": api_key}
    return [
        {**thresholds, **endpoint, "config_context_length": max(2 * budget, 1), "provider": "custom"},
        {**thresholds, **endpoint},
        dict(thresholds),
    ]


def build(compressor_class: Any, shapes: List[Dict[str, Any]]) -> Any:
    try:
        parameters = inspect.signature(compressor_class.__init__).parameters
    except (TypeError, ValueError):
        parameters = {}
    open_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    errors = []
    for shape in shapes:
        if parameters and not open_kwargs and any(name not in parameters for name in shape):
            continue
        try:
            return compressor_class(**shape)
        except TypeError as error:
            errors.append(str(error))
    skip("Hermes' ContextCompressor accepts none of the documented constructor shapes" +
         (f" ({'; '.join(errors)})" if errors else ""))


def tell_context_length(compressor: Any, model: str, context_length: int) -> None:
    """Tells the compressor the host's context window as Hermes does (`update_model`), or sets it where this
    version keeps it; Hermes then derives its own threshold and tail from it."""
    if hasattr(compressor, "update_model"):
        try:
            compressor.update_model(model, context_length)
            return
        except TypeError:
            pass
    if hasattr(compressor, "context_length"):
        compressor.context_length = context_length


def tell_budget(compressor: Any, budget: int) -> None:
    """Sets the trigger threshold and the protected tail from the budget, where this version has them."""
    if hasattr(compressor, "threshold_tokens"):
        compressor.threshold_tokens = budget
    if hasattr(compressor, "tail_token_budget"):
        compressor.tail_token_budget = max(1, int(budget * SUMMARY_TARGET_RATIO))
    if hasattr(compressor, "max_summary_tokens"):
        compressor.max_summary_tokens = max(64, int(budget * SUMMARY_TARGET_RATIO))


def compress_one(request: Dict[str, Any], compressor_class: Any, model_arg: str) -> None:
    """One compaction by a fresh ContextCompressor in a fresh HOME (only its `compress` call is timed)."""
    base_url, api_key, endpoint_model = chat_endpoint()
    model = model_arg or endpoint_model
    if not base_url:
        skip("no chat endpoint for Hermes' summarizer (LLM_BASE_URL): `engines run` hands its loopback endpoint "
             "to the adapter")
    # A throw-away HOME and HERMES_HOME per call, whose config.yaml points Hermes' auxiliary `compression`
    # task (and its main model) at the endpoint; the constructor gets the same endpoint.
    hermes_home = fresh_home("cb-hermes-home-")
    write_hermes_compression_config(hermes_home, base_url, api_key or "none", model)
    watch = SummarizerWatch().install()
    try:
        with stdout_to_stderr():
            budget = request["budget_tokens"]
            context_length = request.get("context_length")
            shapes = constructor_shapes(model, context_length // 2 if context_length else budget, base_url,
                                        api_key or "none")
            compressor = build(compressor_class, shapes)
            if context_length is not None:
                tell_context_length(compressor, model, context_length)
            else:
                tell_budget(compressor, budget)
            try:
                out = timed(lambda: compressor.compress(request["messages"], current_tokens=request["current_tokens"]))
            except Exception as error:
                fail(f"Hermes ContextCompressor.compress failed: {type(error).__name__}: {error}")
        watch.check("Hermes ContextCompressor")
    finally:
        logging.getLogger().removeHandler(watch)
    # Hermes records a summary it could not make on the compressor itself (0.14: `_last_summary_error`).
    error = getattr(compressor, "_last_summary_error", None)
    if isinstance(error, str) and error:
        fail(f"Hermes ContextCompressor: its summarizer reached no model: {error}")
    reply(out)


def main() -> None:
    args = parse_args()
    directory = hermes_dir(args)
    # Importing Hermes is the worker's start-up, never a compress call's time.
    with stdout_to_stderr():
        compressor_class = import_compressor(directory)
    version = str(getattr(sys.modules.get("hermes_cli"), "__version__", "") or "unknown")
    serve(lambda request: compress_one(request, compressor_class, args.model), "hermes ContextCompressor",
          f"Hermes Agent {version}")


if __name__ == "__main__":
    main()
