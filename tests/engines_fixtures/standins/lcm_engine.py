"""Stand-in for hermes-lcm's engine.py (tests only): keeps the system prompt and the last user turn onward,
with a marker of the session it was started with, a summary of the middle turns from Hermes' auxiliary
client (task "compression"), and whether its store in hermes_home was fresh (hermes-lcm keeps an SQLite
store there). Without a provider it logs hermes-lcm's "LLM summarization failed" and leaves the summary out."""
import logging
import os

from .config import LCMConfig

logger = logging.getLogger("hermes_lcm.escalation")


class LCMEngine:
    def __init__(self, config: LCMConfig, hermes_home: str = ""):
        self.config = config
        self.hermes_home = hermes_home
        self.session = None
        self.threshold_tokens = 0

    def on_session_start(self, session_id, **kwargs):
        self.session = session_id

    def compress(self, messages, current_tokens=None, **kwargs):
        store = os.path.join(self.hermes_home, "lcm.db")
        fresh = not os.path.exists(store)
        open(store, "a").write("x")
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        summary = ""
        try:
            from agent.auxiliary_client import call_llm
            summary = call_llm(task="compression", messages=[{"role": "user", "content": "Summarize."}])
        except Exception as error:
            logger.warning("LLM summarization failed: %s", error)
        note = {"role": "assistant", "content": f"[lcm stand-in: session {self.session}, threshold "
                                                f"{self.threshold_tokens}, store {'fresh' if fresh else 'reused'}] {summary}"}
        return [messages[0], note] + messages[last_user:]
