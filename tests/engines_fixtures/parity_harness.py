"""lean-ctx's benchmark harness, column by column, over a plugin (tests only; its definitions restated from
lean-ctx's integrations/hermes-lean-ctx/benchmarks/metrics.py and engines.py, Apache-2.0, not its code).

    python3 parity_harness.py PLUGIN_DIR INPUT.json

INPUT is {messages, needles: [fact, ...], context_length}. The plugin's engine is built in-process as
lean-ctx's harness builds it (its config with the context length; here the daemon path off, as an offline run
falls back) and called once; the row: messages out, verbatim recall (a needle counts when its text is in the
window's contents joined by line breaks) and the window itself.
"""
import importlib.util
import json
import os
import sys

sys.dont_write_bytecode = True
plugin, path = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location(
    "hermes_lean_ctx", os.path.join(plugin, "__init__.py"), submodule_search_locations=[plugin])
module = importlib.util.module_from_spec(spec)
sys.modules["hermes_lean_ctx"] = module
spec.loader.exec_module(module)
from hermes_lean_ctx.config import LeanCtxConfig  # noqa: E402
from hermes_lean_ctx.engine import LeanCtxEngine  # noqa: E402

data = json.load(open(path))
config = LeanCtxConfig(base_url="http://127.0.0.1:9", context_length=data["context_length"], use_core_compaction=False)
out = LeanCtxEngine(config=config).compress(data["messages"], None)
blob = "\n".join(m.get("content") or "" for m in out)
needles = data["needles"]
recall = sum(1 for fact in needles if fact in blob) / len(needles) if needles else 1.0
json.dump({"output_messages": len(out), "verbatim_recall": recall, "window": out}, sys.stdout)
