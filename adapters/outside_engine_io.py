"""Shared plumbing of the compaction-bench outside-engine adapters (standard library only).

An adapter reads one request from stdin, `{"messages": [...], "budget_tokens": N, "current_tokens": N}`,
and writes one reply to stdout: `{"messages": [...]}` when it compacted the window, or
`{"skipped": "reason"}` when the engine it wraps cannot run here (its package or daemon is missing). An
engine with recall tools replies `{"messages": [...], "tools": [...]}` on one line and then serves tool calls
from the same process (`reply_with_recall`), until stdin closes.
A skip is never a measurement and never a crash: the run records the row as `skipped: reason`.
Anything that goes wrong inside the wrapped engine is a failure: a message on stderr and exit code 1.
"""

import importlib
import importlib.util
import json
import logging
import os
import sys
from typing import Any, Callable, Dict, List, NoReturn, Tuple

# The public chat fields an OpenAI message may carry; everything else (an engine's own metadata such as
# Hermes' underscore keys, timestamps) is dropped from the reply.
_MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name")
_ROLES = ("system", "user", "assistant", "tool")
# The reply's channel, kept even while the wrapped engine's prints are sent to stderr (`stdout_to_stderr`).
_REPLY = sys.stdout


def read_request() -> Dict[str, Any]:
    """Reads and checks the request on stdin; a malformed one is a failure (exit 1).

    The request is one line (this program writes it so, and keeps stdin open for tool calls when the engine
    runs as `exec+tools:`); a request spread over several lines is read to the end of stdin.
    """
    first = sys.stdin.readline()
    try:
        request = json.loads(first)
    except ValueError:
        try:
            request = json.loads(first + sys.stdin.read())
        except ValueError as error:
            fail(f"the request on stdin is not JSON: {error}")
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        fail("the request on stdin has no 'messages' list")
    for key in ("budget_tokens", "current_tokens"):
        if not isinstance(request.get(key), int) or request[key] < 0:
            fail(f"the request on stdin has no whole number '{key}'")
    return request


def skip(reason: str) -> NoReturn:
    """Replies that the engine cannot run here, and exits 0."""
    json.dump({"skipped": " ".join(reason.split())[:1900]}, _REPLY)
    _REPLY.flush()
    sys.exit(0)


def fail(reason: str) -> NoReturn:
    """Reports a failure of the wrapped engine on stderr, and exits 1."""
    sys.stderr.write(reason.rstrip() + "\n")
    sys.exit(1)


def _text(content: Any) -> Any:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text"
        )
    return str(content)


def _tool_call(call: Any) -> Dict[str, Any]:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict):
        fail(f"the engine returned a malformed tool call: {json.dumps(call)[:200]}")
    arguments = function.get("arguments", "")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {
        "id": str(call.get("id", "")),
        "type": "function",
        "function": {"name": str(function.get("name", "")), "arguments": arguments},
    }


def clean_messages(messages: Any) -> List[Dict[str, Any]]:
    """The engine's output as plain OpenAI messages (public fields only, text content)."""
    if not isinstance(messages, list):
        fail(f"the engine returned {type(messages).__name__}, not a message list")
    out = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in _ROLES:
            fail(f"the engine returned a malformed message at index {index}")
        clean = {key: message[key] for key in _MESSAGE_FIELDS if key in message and message[key] is not None}
        clean["content"] = _text(message.get("content"))
        if "tool_calls" in clean:
            calls = [_tool_call(call) for call in clean["tool_calls"] or []]
            if calls:
                clean["tool_calls"] = calls
            else:
                del clean["tool_calls"]
        out.append(clean)
    return out


def openai_tools(schemas: Any) -> List[Dict[str, Any]]:
    """Hermes-style tool schemas (`{name, description, parameters}`) as OpenAI tool schemas."""
    tools = []
    for schema in schemas or []:
        if not isinstance(schema, dict):
            continue
        function = schema.get("function") if schema.get("type") == "function" else schema
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            continue
        entry: Dict[str, Any] = {"name": function["name"]}
        if isinstance(function.get("description"), str):
            entry["description"] = function["description"]
        if isinstance(function.get("parameters"), dict):
            entry["parameters"] = function["parameters"]
        tools.append({"type": "function", "function": entry})
    return tools


def reply_with_recall(messages: Any, tools: List[Dict[str, Any]], handle: Callable[[str, Dict[str, Any]], Any]) -> NoReturn:
    """Writes the window and the recall tools offered as one line, then serves tool calls until stdin closes.

    Each tool call is one line `{"op": "tool", "name", "arguments"}`; its answer one line `{"content"}`, or
    `{"error"}` when `handle` raises. Run as a plain `exec:` engine, stdin is already closed: it exits at once.
    """
    _REPLY.write(json.dumps({"messages": clean_messages(messages), "tools": tools}, ensure_ascii=False) + "\n")
    _REPLY.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            answer: Dict[str, Any] = {"error": "the tool request is not JSON"}
        else:
            if not isinstance(request, dict) or request.get("op") != "tool" or not isinstance(request.get("name"), str):
                answer = {"error": "expected {\"op\": \"tool\", \"name\", \"arguments\"}"}
            else:
                arguments = request.get("arguments") if isinstance(request.get("arguments"), dict) else {}
                try:
                    with stdout_to_stderr():
                        content = handle(request["name"], arguments)
                    answer = {"content": content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)}
                except Exception as error:  # the engine's own failure in one tool call: told to the model
                    answer = {"error": f"{type(error).__name__}: {error}"[:1900]}
        _REPLY.write(json.dumps(answer, ensure_ascii=False) + "\n")
        _REPLY.flush()
    sys.exit(0)


def reply(messages: Any) -> NoReturn:
    """Writes the compacted window and exits 0."""
    json.dump({"messages": clean_messages(messages)}, _REPLY, ensure_ascii=False)
    _REPLY.flush()
    sys.exit(0)


def load_plugin_package(package: str, directory: str, what: str) -> Tuple[Any, Any]:
    """A Hermes plugin's `config` and `engine` modules, loaded as the package `package` from its folder.

    `what` names the plugin in the skip reasons (`{what} cannot be loaded as a package`, `{what} cannot be
    imported: …`): a plugin that cannot load here (a missing dependency, an incompatible version) is a skip.
    """
    try:
        spec = importlib.util.spec_from_file_location(
            package, os.path.join(directory, "__init__.py"), submodule_search_locations=[directory]
        )
        if spec is None or spec.loader is None:
            skip(f"{what} cannot be loaded as a package")
        module = importlib.util.module_from_spec(spec)
        sys.modules[package] = module
        spec.loader.exec_module(module)
        return importlib.import_module(f"{package}.config"), importlib.import_module(f"{package}.engine")
    except SystemExit:
        raise
    except Exception as error:  # a missing dependency or an incompatible version: it cannot run here
        skip(f"{what} cannot be imported: {type(error).__name__}: {error}")


def engine_tools(engine: Any) -> List[Dict[str, Any]]:
    """The recall tools a Hermes context engine offers (`get_tool_schemas()`), as OpenAI tool schemas."""
    return openai_tools(engine.get_tool_schemas()) if hasattr(engine, "get_tool_schemas") else []


def reply_with_engine(messages: Any, engine: Any, tools: List[Dict[str, Any]]) -> NoReturn:
    """Replies with the window, and serves the engine's recall `tools` through its own `handle_tool_call`
    (`reply_with_recall`) when it offers any; else replies with the window alone."""
    if not tools or not hasattr(engine, "handle_tool_call"):
        reply(messages)
    reply_with_recall(messages, tools, lambda name, arguments: engine.handle_tool_call(name, arguments))


def fresh_home(prefix: str) -> str:
    """A throw-away HOME with HERMES_HOME inside it (`HOME/.hermes`), set for this process: every call starts
    from nothing (Hermes and hermes-lcm keep state there). Created under TMPDIR, which compaction-bench points
    into the call's own temporary folder (removed after the call)."""
    import tempfile

    home = tempfile.mkdtemp(prefix=prefix)
    hermes_home = os.path.join(home, ".hermes")
    os.makedirs(hermes_home)
    os.environ["HOME"] = home
    os.environ["HERMES_HOME"] = hermes_home
    return hermes_home


def chat_endpoint() -> Tuple[str, str, str]:
    """The chat endpoint compaction-bench hands to outside engines: (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL)."""
    return (
        os.environ.get("LLM_BASE_URL", "").strip(),
        os.environ.get("LLM_API_KEY", "").strip(),
        os.environ.get("LLM_MODEL", "").strip(),
    )


def write_hermes_compression_config(hermes_home: str, base_url: str, api_key: str, model: str) -> None:
    """Points Hermes' auxiliary `compression` task at the endpoint: `config.yaml` `auxiliary.compression` with
    provider `custom`, `base_url`, `api_key` and `model` (Hermes 0.14's `_resolve_task_provider_model` takes a
    task's base_url + api_key from config.yaml as a custom endpoint; it reads no per-task variables). The main
    model is the same endpoint, so nothing falls back to a provider chain. JSON strings are YAML scalars."""
    q = json.dumps
    text = (
        "model:\n"
        f"  default: {q(model)}\n  provider: \"custom\"\n  base_url: {q(base_url)}\n  api_key: {q(api_key)}\n"
        "auxiliary:\n  compression:\n"
        f"    provider: \"custom\"\n    base_url: {q(base_url)}\n    api_key: {q(api_key)}\n    model: {q(model)}\n"
    )
    with open(os.path.join(hermes_home, "config.yaml"), "w", encoding="utf-8") as handle:
        handle.write(text)


# What Hermes and hermes-lcm log when their summarizer has no model to call (the row must not read ok).
_NO_SUMMARIZER = (
    "no provider available",
    "dropped without summary",
    "no llm provider configured",
    "no auxiliary llm provider",
    "llm summarization failed",
)


class SummarizerWatch(logging.Handler):
    """Collects warnings of the wrapped engine's loggers that say its summarizer could not reach a model."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.problems: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a malformed log call must not break the engine
            return
        if any(marker in message.lower() for marker in _NO_SUMMARIZER):
            self.problems.append(" ".join(message.split())[:400])

    def install(self) -> "SummarizerWatch":
        root = logging.getLogger()
        root.addHandler(self)
        if root.level == logging.NOTSET or root.level > logging.WARNING:
            root.setLevel(logging.WARNING)
        return self

    def check(self, engine: str) -> None:
        """Fails the call when the summarizer reported no model (its output is a no-summary fallback)."""
        if self.problems:
            fail(f"{engine}: its summarizer reached no model: {self.problems[0]}")


class stdout_to_stderr:
    """While active, anything the wrapped engine prints goes to stderr: stdout carries only the reply."""

    def __enter__(self) -> None:
        self._saved = sys.stdout
        sys.stdout = sys.stderr

    def __exit__(self, *exc: Any) -> None:
        sys.stdout = self._saved
