"""A stand-in outside engine speaking the worker protocol through adapters/outside_engine_io.py (tests only).

    python3 sleepy_worker.py IMPORT_SECONDS COMPRESS_SECONDS

Sleeps IMPORT_SECONDS before its hello (its "imports") and COMPRESS_SECONDS inside each timed compress call.
Keeps the system message and the last 6 messages (never starting on a tool result), and adds one message
saying what it saw: the request's context_length and how many calls its store has seen (a file in its
HERMES_HOME, as hermes-lcm keeps its SQLite store): with a fresh home per call (`fresh_home`, as the real
adapters do) that is always 1.
"""
import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters"))
from outside_engine_io import fresh_home, reply, serve, timed  # noqa: E402

time.sleep(float(sys.argv[1]))
COMPRESS_SECONDS = float(sys.argv[2])


class Engine:
    """A stateful engine: its store counts the calls it has seen."""

    def __init__(self, store):
        self.store = store

    def compress(self, messages):
        time.sleep(COMPRESS_SECONDS)
        seen = int(open(self.store).read()) + 1 if os.path.exists(self.store) else 1
        with open(self.store, "w") as f:
            f.write(str(seen))
        head = [m for m in messages[:1] if m.get("role") == "system"]
        tail = messages[len(head):][-6:]
        while tail and tail[0].get("role") == "tool":
            tail = tail[1:]
        return head, tail, seen


def handle(request):
    engine = Engine(os.path.join(fresh_home("sleepy-home-"), "store"))
    head, tail, seen = timed(lambda: engine.compress(request["messages"]))
    note = {"role": "user", "content": f"context_length={request.get('context_length')} calls_in_store={seen}"}
    reply([*head, note, *tail])


serve(handle, "sleepy", "1.0")
