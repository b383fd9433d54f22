"""Stand-in for Hermes Agent's agent/auxiliary_client.py (tests only): `call_llm(task=...)` resolves the task's
endpoint the way Hermes 0.14 does for an explicit per-task entry — `auxiliary.<task>.base_url` and `api_key`
in `$HERMES_HOME/config.yaml` — and otherwise logs Hermes' "no provider available" warning and raises
RuntimeError. The config is read as the flat `key: value` lines this program's adapters write."""
import json
import logging
import os
import urllib.request

logger = logging.getLogger("agent.auxiliary_client")


def _task_config(task):
    path = os.path.join(os.environ.get("HERMES_HOME", os.path.expanduser("~/.hermes")), "config.yaml")
    if not os.path.isfile(path):
        return {}
    section, found = None, {}
    for line in open(path, encoding="utf-8").read().splitlines():
        stripped = line.strip()
        if line.startswith("  ") and not line.startswith("    ") and stripped.endswith(":"):
            section = stripped[:-1]
        elif line.startswith("    ") and section == task and ":" in stripped:
            key, value = stripped.split(":", 1)
            found[key.strip()] = json.loads(value.strip())
    return found


def call_llm(task=None, *, messages, max_tokens=None, **kwargs):
    config = _task_config(task)
    if not (config.get("base_url") and config.get("api_key")):
        logger.warning("Auxiliary auto-detect: no provider available (tried: openrouter, nous, local/custom). "
                       "Compression, summarization, and memory flush will not work.")
        raise RuntimeError(f"No LLM provider configured for task={task} provider=auto")
    body = json.dumps({"model": config.get("model", ""), "messages": messages, "max_tokens": max_tokens or 48})
    request = urllib.request.Request(config["base_url"].rstrip("/") + "/chat/completions", data=body.encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + config["api_key"]})
    with urllib.request.urlopen(request, timeout=20) as response:
        return json.load(response)["choices"][0]["message"]["content"]
