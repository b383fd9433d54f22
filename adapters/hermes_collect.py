#!/usr/bin/env python3
"""Collect one hotpot trajectory with the real Hermes Agent, for `hotpot collect --agent exec:'...'`.

Protocol (see src/suites/hotpot/collect/collect_agent.ts): this script runs in the question's workspace directory and
reads one JSON object on stdin, {"question": str, "files": [relative paths], "titles": [str], "task": str,
"workspace": abs dir, "system_prompt"?: str}; a given system_prompt is handed to Hermes as its system message.
It runs Hermes Agent's own agent loop (its own system prompt, its own read_file tool) on the given task (the
question and the files with their article titles: "read every file completely, then answer the question";
built from question and files when the request has none), and prints one session in the Hermes session format on stdout:
{"session_id", "model", "platform": "compaction-bench", "agent": {"name", "version", "commit"},
"completed", "api_calls", "turn_exit_reason", "messages": [...]}, with the agent's system prompt as the
first message.

Running it cleanly:
- stdout is the session only. While Hermes runs, file descriptor 1 points at stderr, so whatever Hermes (or
  a process it starts) prints goes to stderr; the session is written to the real stdout at the end.
- A throw-away home per question: HOME and HERMES_HOME point at a fresh temporary folder (Hermes writes its
  logs, sessions and request dumps there), removed when the script ends. Its config.yaml switches Hermes'
  automatic context compression off (`compression.enabled: false`); thinking is off through
  `reasoning_config={"enabled": False}`.
- The exit code says whether the agent finished: 0 when Hermes reports the conversation completed, 1 when it
  did not (the session, as far as it got, is still printed; the reason goes to stderr), 2 for bad input, 3
  when Hermes cannot be imported or started.
- Hermes' version (`hermes_cli/__init__.py`, else `pyproject.toml`) and, where the checkout is a git
  repository, its commit (and whether the work tree differs from it) are recorded in the session's "agent".

Hermes is imported from --hermes DIR or $HERMES_AGENT_DIR (a Hermes Agent checkout, whose `run_agent.py`
defines `AIAgent`). The chat endpoint comes from $LLM_BASE_URL and $LLM_API_KEY — `hotpot collect --agent …
--reference` (or `--live`) hands it this program's loopback endpoint, with a per-question token; or pass your
own with `--agent-env LLM_BASE_URL --agent-env LLM_API_KEY` (a server that needs no key gets the placeholder
"EMPTY") — and the model from --model / $LLM_MODEL.

Python 3 standard library only (Hermes brings its own dependencies).
"""
import argparse
import atexit
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

EXIT_NOT_FINISHED = 1
EXIT_BAD_INPUT = 2
EXIT_NO_HERMES = 3

# Hermes' own settings for a collection run (config.yaml in the throw-away HERMES_HOME; JSON is YAML).
COLLECTION_CONFIG = {"compression": {"enabled": False}}


def fail(code, message):
    print(f"hermes_collect.py: {message}", file=sys.stderr)
    sys.exit(code)


def hermes_identity(directory):
    """{"name", "version", "commit"?, "dirty"?} of the Hermes checkout at `directory`."""
    identity = {"name": "hermes-agent", "version": None}
    for relative, pattern in (("hermes_cli/__init__.py", r'^__version__\s*=\s*["\']([^"\']+)["\']'),
                              ("pyproject.toml", r'^version\s*=\s*["\']([^"\']+)["\']')):
        try:
            with open(os.path.join(directory, relative), encoding="utf-8") as handle:
                match = re.search(pattern, handle.read(), re.M)
        except OSError:
            continue
        if match:
            identity["version"] = match.group(1)
            break
    git = shutil.which("git")
    if git and os.path.exists(os.path.join(directory, ".git")):
        try:
            commit = subprocess.run([git, "-C", directory, "rev-parse", "HEAD"], capture_output=True, text=True,
                                    timeout=30, check=True).stdout.strip()
            status = subprocess.run([git, "-C", directory, "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True, timeout=60, check=True).stdout
        except (OSError, subprocess.SubprocessError):
            return identity
        if re.fullmatch(r"[0-9a-f]{40,64}", commit):
            identity["commit"] = commit
            identity["dirty"] = status.strip() != ""
    return identity


def make_home():
    """A fresh HOME with HERMES_HOME inside it and the collection config; set in this process's environment."""
    home = tempfile.mkdtemp(prefix="hermes-collect-home-")
    hermes_home = os.path.join(home, ".hermes")
    os.makedirs(hermes_home)
    with open(os.path.join(hermes_home, "config.yaml"), "w", encoding="utf-8") as handle:
        json.dump(COLLECTION_CONFIG, handle)
    os.environ["HOME"] = home
    os.environ["HERMES_HOME"] = hermes_home
    # Registered before Hermes is imported, so it runs after Hermes' own exit handlers (which still write there).
    atexit.register(shutil.rmtree, home, True)
    return home


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


def finished(result):
    """Whether Hermes says the conversation completed (older versions: a final answer and no failure)."""
    if "completed" in result:
        return result.get("completed") is True
    return result.get("final_response") is not None and not result.get("failed")


def run(args, request, identity):
    """Runs Hermes on the request; returns (session, finished, reason)."""
    task, system_prompt = request
    AIAgent = import_hermes(args.hermes)
    base_url = os.environ.get("LLM_BASE_URL")
    if not base_url:
        fail(EXIT_NO_HERMES, "no chat endpoint: run hotpot collect with --reference or --live (the loopback "
             "endpoint), or set LLM_BASE_URL (and LLM_API_KEY) and pass them with --agent-env LLM_BASE_URL "
             "--agent-env LLM_API_KEY")
    wanted = {
        "model": args.model,
        "base_url": base_url,
        "api_key": os.environ.get("LLM_API_KEY") or "EMPTY",
        "enabled_toolsets": ["file"],
        "max_iterations": args.max_iterations,
        "tool_delay": 0,
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
    conversation = {"user_message": task}
    if system_prompt:
        conversation["system_message"] = system_prompt
    accepted = accepted_kwargs(agent.run_conversation, conversation)
    if system_prompt and "system_message" not in accepted:
        fail(EXIT_NO_HERMES, "this Hermes version's run_conversation takes no system_message")
    try:
        result = agent.run_conversation(**accepted)
    except Exception as error:  # the agent's own failure, reported with its type
        fail(EXIT_NOT_FINISHED, f"Hermes' agent loop failed: {type(error).__name__}: {error}")
    if not isinstance(result, dict):
        fail(EXIT_NOT_FINISHED, f"Hermes returned {type(result).__name__}, not a result object")
    messages = list(result.get("messages") or [])
    if not messages:
        fail(EXIT_NOT_FINISHED, "Hermes returned no messages")
    prompt = system_prompt_of(agent, messages)
    if prompt is not None:
        messages.insert(0, {"role": "system", "content": prompt})
    done = finished(result)
    session = {
        "session_id": getattr(agent, "session_id", None),
        "model": args.model,
        "platform": "compaction-bench",
        "agent": identity,
        "completed": done,
        "api_calls": result.get("api_calls"),
        "turn_exit_reason": result.get("turn_exit_reason"),
        "messages": messages,
    }
    reason = None
    if not done:
        reason = (result.get("error") or result.get("turn_exit_reason") or
                  ("interrupted" if result.get("interrupted") else "no final answer"))
    return session, done, reason


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hermes", default=os.environ.get("HERMES_AGENT_DIR"), help="Hermes Agent checkout")
    parser.add_argument("--model", default=os.environ.get("LLM_MODEL", "qwen3.8-max"))
    parser.add_argument("--max-iterations", type=int, default=60)
    args = parser.parse_args()

    try:
        raw = json.load(sys.stdin)
        task = raw.get("task") or task_text(raw["question"], list(raw["files"]))
        if not isinstance(task, str):
            raise TypeError("task is not a string")
        request = (task, raw.get("system_prompt"))
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        fail(EXIT_BAD_INPUT, f"stdin is not a collection request {{question, files}}: {error}")

    identity = hermes_identity(args.hermes) if args.hermes and os.path.isdir(args.hermes) else None
    sys.stdout.flush()
    session_out = os.dup(1)
    os.dup2(2, 1)  # Hermes' prints (and its children's) go to stderr; stdout carries the session only
    home = make_home()
    try:
        session, done, reason = run(args, request, identity)
    finally:
        sys.stdout.flush()
        shutil.rmtree(home, ignore_errors=True)
    with os.fdopen(session_out, "w", encoding="utf-8") as out:
        json.dump(session, out, ensure_ascii=False)
        out.write("\n")
    if not done:
        fail(EXIT_NOT_FINISHED, f"the agent did not finish: {reason}")


if __name__ == "__main__":
    main()
