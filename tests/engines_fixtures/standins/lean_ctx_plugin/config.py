"""Stand-in of the plugin's config.py (tests only)."""
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class LeanCtxConfig:
    base_url: str
    context_length: int = 128000
    protect_fraction: float = 0.25
    protect_min_messages: int = 6
    protect_min_tokens: int = 2000
    use_core_compaction: bool = True

    def protect_tokens(self) -> int:
        return max(self.protect_min_tokens, int(self.context_length * self.protect_fraction))

    @classmethod
    def from_env(cls) -> "LeanCtxConfig":
        return cls(base_url=os.environ.get("LEANCTX_BASE_URL", "http://127.0.0.1:8080"),
                   use_core_compaction=os.environ.get("LEANCTX_CORE_COMPACTION", "1") != "0")
