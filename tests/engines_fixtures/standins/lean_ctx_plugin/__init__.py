"""Stand-in for lean-ctx's integrations/hermes-lean-ctx plugin package (tests only): the same module names and
the interface the adapter uses (`config.LeanCtxConfig.from_env()`, a frozen dataclass; `engine.LeanCtxEngine(
config=..., hermes_home=...)` with `compress(messages, current_tokens=...)`), a deterministic local compaction."""
