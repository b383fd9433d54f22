#!/usr/bin/env python3
"""Collect one hotpot trajectory with the real Hermes Agent, for `hotpot collect --agent exec:'...'`.

Protocol (see src/suites/hotpot/collect_agent.ts): this script runs in the question's workspace directory and
reads one JSON object on stdin, {"question": str, "files": [relative paths], "workspace": abs dir,
"system_prompt"?: str}; a given system_prompt is handed to Hermes as its system message. It runs
Hermes Agent's own agent loop (its own system prompt, its own read_file tool) on the task "read every file
completely, then answer the question", and prints one session in the Hermes session format on stdout:
{"session_id", "model", "platform": "compaction-bench", "messages": [...]} with the agent's system prompt as the
first message. Hermes' context compression is switched off where the agent exposes the switch.

Hermes is imported from --hermes DIR or $HERMES_AGENT_DIR (a checkout of NousResearch/hermes-agent, whose
`run_agent.py` defines `AIAgent`). The chat endpoint comes from --model / $LLM_MODEL, $LLM_BASE_URL and
$LLM_API_KEY. When Hermes cannot be imported or run, the script says why on stderr and exits 3 (nothing on
stdout); the collection then records that question as invalid with this reason.

Python 3 standard library only (Hermes brings its own dependencies).
"""
import argparse
import inspect
import json
import os
import sys

EXIT_NO_HERMES = 3
EXIT_BAD_INPUT = 2


def fail(code, message):
    print(f"hermes_collect.py: {message}", file=sys.stderr)
    sys.exit(code)


def import_hermes(directory):
    if not directory:
        fail(EXIT_NO_HERMES, "no Hermes Agent given: pass --hermes DIR or set HERMES_AGENT_DIR")
    if not os.path.isdir(directory):
        fail(EXIT_NO_HERMES, f"Hermes Agent directory {directory!r} does not exist")
    sys.path.insert(0, os.path.abspath(directory))
    try:
        from run_agent import AIAgent  # noqa: PLC0415 - imported from the given checkout
    except Exception as error:  # any import failure (missing module or dependency) is reported, not raised
        fail(EXIT_NO_HERMES, f"cannot import Hermes Agent (run_agent.AIAgent) from {directory!r}: "
             f"{type(error).__name__}: {error}")
    return AIAgent


def accepted_kwargs(factory, wanted):
    """The keyword arguments of `wanted` that `factory` accepts (Hermes' constructor changes across versions)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return wanted
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return wanted
    return {k: v for k, v in wanted.items() if k in params}


def task_text(question, files):
    listing = "\n".join(f"- {f}" for f in files)
    return ("Answer the following question using the files in the workspace. Read every file completely with "
            f"read_file before you answer.\n\nQuestion: {question}\n\nFiles:\n{listing}")


def system_prompt_of(agent, messages):
    if messages and messages[0].get("role") == "system":
        return None
    for name in ("_cached_system_prompt", "system_prompt", "_system_prompt"):
        value = getattr(agent, name, None)
        if isinstance(value, str) and value.strip():
            return value
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hermes", default=os.environ.get("HERMES_AGENT_DIR"), help="Hermes Agent checkout")
    parser.add_argument("--model", default=os.environ.get("LLM_MODEL", "qwen3.8-max"))
    parser.add_argument("--max-iterations", type=int, default=30)
    args = parser.parse_args()

    try:
        request = json.load(sys.stdin)
        question = request["question"]
        files = list(request["files"])
        system_prompt = request.get("system_prompt")
    except (ValueError, KeyError, TypeError) as error:
        fail(EXIT_BAD_INPUT, f"stdin is not a collection request {{question, files}}: {error}")

    AIAgent = import_hermes(args.hermes)
    wanted = {
        "model": args.model,
        "base_url": os.environ.get("LLM_BASE_URL"),
        "api_key": os.environ.get("LLM_API_KEY"),
        "enabled_toolsets": ["file"],
        "max_iterations": args.max_iterations,
        "quiet_mode": True,
        "save_trajectories": False,
        "reasoning_config": {"enabled": False},
    }
    try:
        agent = AIAgent(**accepted_kwargs(AIAgent, wanted))
    except Exception as error:  # report any constructor failure with its type
        fail(EXIT_NO_HERMES, f"cannot create Hermes' AIAgent: {type(error).__name__}: {error}")
    for switch in ("compression_enabled", "auto_compress"):  # automatic compaction stays off while collecting
        if hasattr(agent, switch):
            setattr(agent, switch, False)
    try:
        conversation = {"user_message": task_text(question, files)}
        if system_prompt:
            conversation["system_message"] = system_prompt
        accepted = accepted_kwargs(agent.run_conversation, conversation)
        if system_prompt and "system_message" not in accepted:
            fail(EXIT_NO_HERMES, "this Hermes version's run_conversation takes no system_message")
        result = agent.run_conversation(**accepted)
    except Exception as error:  # the agent's own failure, reported with its type
        fail(1, f"Hermes' agent loop failed: {type(error).__name__}: {error}")
    messages = list(result.get("messages") or []) if isinstance(result, dict) else []
    if not messages:
        fail(1, "Hermes returned no messages")
    prompt = system_prompt_of(agent, messages)
    if prompt is not None:
        messages.insert(0, {"role": "system", "content": prompt})
    session = {
        "session_id": getattr(agent, "session_id", None),
        "model": args.model,
        "platform": "compaction-bench",
        "messages": messages,
    }
    json.dump(session, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
