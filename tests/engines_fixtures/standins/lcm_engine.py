"""Stand-in for hermes-lcm's engine.py (tests only): keeps the system prompt and the last user turn onward,
with a marker of the session it was started with, a summary of the middle turns from Hermes' auxiliary
client (task "compression"), and whether its store in hermes_home was fresh (hermes-lcm keeps an SQLite
store there). Without a provider it logs hermes-lcm's "LLM summarization failed" and leaves the summary out.
Like hermes-lcm it offers a recall tool, `lcm_grep` (Hermes' schema layout), answered from what it compacted
away, as JSON with snippets; it prints while answering (the adapter must keep stdout for its replies)."""
import json
import logging
import os
import re

from .config import LCMConfig

logger = logging.getLogger("hermes_lcm.escalation")


class LCMEngine:
    def __init__(self, config: LCMConfig, hermes_home: str = ""):
        self.config = config
        self.hermes_home = hermes_home
        self.session = None
        self.threshold_tokens = 0
        self.dropped = []

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
        self.dropped = messages[1:last_user]
        return [messages[0], note] + messages[last_user:]

    def get_tool_schemas(self):
        return [{
            "name": "lcm_grep",
            "description": "Search the compacted conversation.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        }]

    def handle_tool_call(self, name, args, **kwargs):
        print("lcm stand-in: searching", name)  # noise on stdout, as a plugin may make
        words = set(re.findall(r"[a-z0-9]+", str(args.get("query", "")).lower()))
        snippets = []
        for message in self.dropped:
            for sentence in re.split(r"(?<=\.)\s+", message.get("content") or ""):
                if words and words <= set(re.findall(r"[a-z0-9]+", sentence.lower())):
                    snippets.append({"type": "message", "snippet": sentence})
        return json.dumps({"query": args.get("query"), "results": snippets[:3]})
