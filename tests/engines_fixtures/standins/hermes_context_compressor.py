"""Stand-in for Hermes Agent's agent/context_compressor.py (tests only): the newest documented constructor
shape, a compress(messages, current_tokens, focus_topic) that keeps the system prompt and the last user turn
onward and puts a one-call summary from the configured endpoint between them, with a private metadata key."""
import json
import urllib.request


class ContextCompressor:
    def __init__(self, model, threshold_percent=0.50, protect_first_n=3, protect_last_n=20,
                 summary_target_ratio=0.20, quiet_mode=False, summary_model_override=None, base_url="",
                 api_key="", config_context_length=None, provider="", api_mode="",
                 abort_on_summary_failure=False, max_tokens=None):
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.threshold_tokens = 64000
        self.tail_token_budget = 12800
        self.max_summary_tokens = 2000

    def _summarize(self, turns):
        body = json.dumps({
            "model": self.model,
            "messages": [{"role": "user", "content": "Summarize these turns:\n" + "\n".join(
                str(m.get("content") or "") for m in turns)}],
            "max_tokens": 48,
        }).encode()
        request = urllib.request.Request(self.base_url.rstrip("/") + "/chat/completions", data=body, headers={
            "Content-Type": "application/json", "Authorization": "Bearer " + self.api_key})
        with urllib.request.urlopen(request, timeout=20) as response:
            return json.load(response)["choices"][0]["message"]["content"]

    def compress(self, messages, current_tokens=None, focus_topic=None):
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        summary = self._summarize(messages[1:last_user])
        note = {"role": "user", "content": f"[stand-in summary, tail budget {self.tail_token_budget}] {summary}",
                "_compressed_summary": True}
        return [messages[0], note] + messages[last_user:]
