"""Stand-in for hermes-lcm's engine.py (tests only): keeps the system prompt and the last user turn onward,
with a marker of the session it was started with."""
from .config import LCMConfig


class LCMEngine:
    def __init__(self, config: LCMConfig, hermes_home: str = ""):
        self.config = config
        self.hermes_home = hermes_home
        self.session = None
        self.threshold_tokens = 0

    def on_session_start(self, session_id, **kwargs):
        self.session = session_id

    def compress(self, messages, current_tokens=None, **kwargs):
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        note = {"role": "assistant", "content": f"[lcm stand-in: session {self.session}, threshold {self.threshold_tokens}]"}
        return [messages[0], note] + messages[last_user:]
