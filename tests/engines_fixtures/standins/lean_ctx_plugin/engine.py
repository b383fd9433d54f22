"""Stand-in of the plugin's engine.py (tests only): the daemon path is never taken when use_core_compaction is
off; the marker of the budget it was given is kept in the summary."""
from . import compaction
from .config import LeanCtxConfig


class LeanCtxEngine:
    def __init__(self, context_length=None, *, config: LeanCtxConfig = None, hermes_home=None, **kwargs):
        self._config = config or LeanCtxConfig.from_env()
        if self._config.use_core_compaction:
            raise RuntimeError("the stand-in has no daemon path")

    def compress(self, messages, current_tokens=None, focus_topic=None):
        out = compaction.compact(messages, self._config.protect_tokens(), self._config.protect_min_messages)
        for m in out:
            if compaction.SUMMARY_MARKER in str(m.get("content")):
                m["content"] += f" (fresh tail {self._config.protect_tokens()} tokens)"
        return out
