"""Shared plumbing of the compaction-bench outside-engine adapters (standard library only): the one Python
implementation of the worker protocol (docs/WORKER_PROTOCOL.md).

An adapter is a worker (`serve`): after its imports it writes a hello line, `{"hello": {"engine", "version",
"startup_ms", "keeps_state"}}`, then answers one line per request line until stdin closes. A compress request
is `{"op": "compress", "id", "messages", "budget_tokens", "current_tokens", "context_length"?, "env"?}`; its
reply `{"messages": [...], "compress_ms": T}` (T: the wrapped engine's own call, timed here with a monotonic
clock), with `"tools": [...]` when the engine offers recall tools, or `{"skipped": "reason"}` when the engine
cannot run here (its package or daemon is missing). `{"op": "tool", "id", "name", "arguments"}` calls a recall
tool of the instance that answered compress request `id`; `{"op": "release", "id"}` drops that instance.
Every call gets a fresh engine instance and a fresh HOME (its state), and the request's `env` (the call's
loopback endpoint and token) only for that call.
A skip is never a measurement and never a crash: the run records the row as `skipped: reason`.
Anything that goes wrong inside the wrapped engine is a failure: a message on stderr and exit code 1.
"""

import importlib
import importlib.util
import json
import logging
import os
import sys
import time
from typing import Any, Callable, Dict, List, NoReturn, Tuple

# The public chat fields an OpenAI message may carry; everything else (an engine's own metadata such as
# Hermes' underscore keys, timestamps) is dropped from the reply.
_MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name")
_ROLES = ("system", "user", "assistant", "tool")
# The reply's channel, kept even while the wrapped engine's prints are sent to stderr (`stdout_to_stderr`).
_REPLY = sys.stdout


def check_request(request: Any) -> Dict[str, Any]:
    """Checks a compress request; a malformed one is a failure (exit 1)."""
    if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
        fail("the request on stdin has no 'messages' list")
    for key in ("budget_tokens", "current_tokens"):
        if not isinstance(request.get(key), int) or request[key] < 0:
            fail(f"the request on stdin has no whole number '{key}'")
    length = request.get("context_length")
    if length is not None and (not isinstance(length, int) or length < 1):
        fail("the request's 'context_length' is not a whole number >= 1")
    return request


# The wrapped engine's own compress time of the current request (ms), set by `timed`.
_compress_ms: Any = None


def timed(call: Callable[[], Any]) -> Any:
    """Runs `call` (the wrapped engine's compress call, nothing else) and keeps its time for the reply."""
    global _compress_ms
    started = time.perf_counter()
    try:
        return call()
    finally:
        _compress_ms = (time.perf_counter() - started) * 1000.0


class _Replied(BaseException):
    """Ends the handling of one request with its reply (raised by `reply`, caught by `serve`)."""

    def __init__(self, payload: Dict[str, Any], handle: Any = None) -> None:
        super().__init__()
        self.payload = payload
        self.handle = handle


def skip(reason: str) -> NoReturn:
    """Replies that the engine cannot run here (a line), and exits 0: no later call could run either."""
    _write_line({"skipped": " ".join(reason.split())[:1900]})
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


def _payload(messages: Any, tools: Any = None) -> Dict[str, Any]:
    payload: Dict[str, Any] = {"messages": clean_messages(messages)}
    if tools:
        payload["tools"] = tools
    if _compress_ms is not None:
        payload["compress_ms"] = round(_compress_ms, 3)
    return payload


def reply_with_recall(messages: Any, tools: List[Dict[str, Any]], handle: Callable[[str, Dict[str, Any]], Any]) -> NoReturn:
    """Replies with the window and the recall tools offered; `handle(name, arguments)` answers their calls
    (`{"op": "tool", "id", ...}` lines) until the instance is released."""
    raise _Replied(_payload(messages, tools), handle)


def reply(messages: Any) -> NoReturn:
    """Replies with the compacted window (and the engine's own compress time, when `timed` measured it)."""
    raise _Replied(_payload(messages))


def _tool_answer(handle: Callable[[str, Dict[str, Any]], Any], request: Dict[str, Any]) -> Dict[str, Any]:
    if not isinstance(request.get("name"), str):
        return {"error": "expected {\"op\": \"tool\", \"id\", \"name\", \"arguments\"}"}
    arguments = request.get("arguments") if isinstance(request.get("arguments"), dict) else {}
    try:
        with stdout_to_stderr():
            content = handle(request["name"], arguments)
        return {"content": content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)}
    except Exception as error:  # the engine's own failure in one tool call: told to the model
        return {"error": f"{type(error).__name__}: {error}"[:1900]}


def _write_line(payload: Dict[str, Any]) -> None:
    _REPLY.write(json.dumps(payload, ensure_ascii=False) + "\n")
    _REPLY.flush()


def _process_age_ms() -> Any:
    """Milliseconds since compaction-bench started this process (`COMPACTION_BENCH_SPAWNED_AT`, epoch ms), or
    None when it did not say."""
    try:
        return max(0.0, time.time() * 1000.0 - float(os.environ["COMPACTION_BENCH_SPAWNED_AT"]))
    except (KeyError, ValueError):
        return None


def serve(handle: Callable[[Dict[str, Any]], None], engine: str, version: str, keeps_state: bool = False) -> NoReturn:
    """Runs the adapter as a worker (the module notes): the hello, then one reply line per request line.

    `handle(request)` compacts one request and ends with `reply`/`reply_with_engine` (or `skip`/`fail`). Each
    request runs with its `env` set and HOME restored afterwards, so no call sees another's state.
    """
    hello: Dict[str, Any] = {"engine": engine, "version": version, "keeps_state": keeps_state}
    age = _process_age_ms()
    if age is not None:
        hello["startup_ms"] = round(age, 3)
    _write_line({"hello": hello})
    instances: Dict[str, Callable[[str, Dict[str, Any]], Any]] = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as error:
            fail(f"a request line is not JSON: {error}")
        if not isinstance(request, dict):
            fail("a request line is not a JSON object")
        op = request.get("op", "compress")
        key = str(request.get("id", ""))
        if op == "tool":
            handle_tool = instances.get(key)
            _write_line(_tool_answer(handle_tool, request) if handle_tool else {"error": f"no instance {key!r}"})
            continue
        if op == "release":
            instances.pop(key, None)
            _write_line({"released": True})
            continue
        if op != "compress":
            _write_line({"error": f"unknown op {op!r}"})
            continue
        saved = dict(os.environ)
        extra = request.get("env") if isinstance(request.get("env"), dict) else {}
        os.environ.update({str(k): str(v) for k, v in extra.items()})
        global _compress_ms
        _compress_ms = None
        try:
            handle(check_request(request))
            fail("the adapter returned without a reply")
        except _Replied as done:
            if done.handle is not None:
                instances[key] = done.handle
            _write_line(done.payload)
        finally:
            os.environ.clear()
            os.environ.update(saved)
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


def plugin_version(directory: str) -> str:
    """A Hermes plugin's version: the `version:` line of its `plugin.yaml`, else "unknown"."""
    try:
        with open(os.path.join(directory, "plugin.yaml"), encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("version:"):
                    return line.split(":", 1)[1].strip().strip("\"'") or "unknown"
    except OSError:
        pass
    return "unknown"


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
