"""Stand-in for Hermes Agent's agent/context_compressor.py (tests only): the newest documented constructor
shape, a compress(messages, current_tokens, focus_topic) that keeps the system prompt and the last user turn
onward and puts a one-call summary between them, with a private metadata key. Like Hermes 0.14, the summary
goes through the auxiliary client's task "compression" (agent/auxiliary_client.py, also a stand-in); with no
provider it logs Hermes' warning and drops the middle turns without a summary. It prints a console line to
stdout, as Hermes does."""
import logging

from agent.auxiliary_client import call_llm

logger = logging.getLogger("agent.context_compressor")


class ContextCompressor:
    def __init__(self, model, threshold_percent=0.50, protect_first_n=3, protect_last_n=20,
                 summary_target_ratio=0.20, quiet_mode=False, summary_model_override=None, base_url="",
                 api_key="", config_context_length=None, provider="", api_mode="",
                 abort_on_summary_failure=False, max_tokens=None):
        self.model = model
        self.threshold_tokens = 64000
        self.tail_token_budget = 12800
        self.max_summary_tokens = 2000
        self._last_summary_error = None

    def compress(self, messages, current_tokens=None, focus_topic=None):
        print("⚠️  stand-in console line on stdout")
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        turns = messages[1:last_user]
        try:
            summary = call_llm(task="compression", messages=[{"role": "user", "content": "Summarize these turns:\n" +
                                                               "\n".join(str(m.get("content") or "") for m in turns)}])
        except RuntimeError:
            self._last_summary_error = "no auxiliary LLM provider configured"
            logger.warning("Context compression: no provider available for summary. Middle turns will be "
                           "dropped without summary for 60 seconds.")
            return [messages[0]] + messages[last_user:]
        note = {"role": "user", "content": f"[stand-in summary, tail budget {self.tail_token_budget}] {summary}",
                "_compressed_summary": True}
        return [messages[0], note] + messages[last_user:]
