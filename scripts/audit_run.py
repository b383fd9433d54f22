#!/usr/bin/env python3
"""An independent auditor of one compaction-bench run directory (format compaction-bench/run@1).

Written from docs/FORMAT.md alone, with the Python 3 standard library only, so that an auditor need not trust
the program that wrote the run. It re-hashes every blob, checks the journal's chain and canonical form, the
manifest against the journal, every node key (RFC 8785 canonical JSON, implemented here), that the DAG is
closed, that every node's output names are plain names its stage declares, that every published file matches
its blob and is an output of the node that publishes it (or a declared source, published as given), and that
nothing else is in the run. Every JSON text is read bounded: at most 512 deep, no duplicate key (I-JSON).

Usage: python3 scripts/audit_run.py [--strict] [--strict-modes] [--sources] RUN
Prints one line per problem ("kind: subject: detail") on stdout and notes and a summary on stderr.
The program's source files the run keeps (its source "program", docs/FORMAT.md: gzip-compressed since
program-source@2, plain in older @1 runs; both read) are checked: each file against
its recorded SHA-256 (a changed file is named) and the covered files' list against the header's source_hash;
--sources lists them ("sha256 bytes path") on stdout first.
When no blob is read-only (0444, as the writer leaves it) and none was chmod'ed after its content was written,
that is one note (a copy through Python's zipfile or a git checkout writes every blob so while every hash
holds); a writable blob beside read-only ones or changed after its write, or any with --strict-modes, is a
"mode" problem per blob.
Every published file must be an output named as the file, or the `file` output of a node whose params name
it (protocol.json), or a declared source.
Exit codes: 0 every check holds, 1 a problem was found, 2 bad usage.
"""

import hashlib
import json
import math
import os
import re
import stat
import sys
import zlib

FORMAT = "compaction-bench/run@1"
HEX64 = re.compile(r"^[0-9a-f]{64}$")
BLOB_PATH = re.compile(r"^objects/sha256/([0-9a-f]{2})/([0-9a-f]{62})$")
OBJECT_FOLDER = re.compile(r"^objects(/sha256(/[0-9a-f]{2})?|/tmp)?$")
EXPORT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
HEADER_FIELDS = ("format", "program", "suite", "invocation", "tokenizer", "protocol", "sources", "created")
MAX_RECORD_BYTES = 256 * 1024 * 1024
MAX_SAFE_INTEGER = 2**53 - 1
CHUNK = 1 << 20


SUITES = ("hotpot", "hotpot-collect", "sweep", "engines")
DERIVED_STAGES = ("hotpot-answer", "sweep-answer", "hotpot-summary", "sweep-summary", "hotpot-rank", "sweep-rank")
# Recorded options the run-header node does not bind (they do not change what a run computes); nor does it
# bind an option named like a key of the header's sources (a source file's path: its bytes are bound by hash).
UNBOUND_OPTIONS = ("output", "out", "quiet", "retry-failed", "frozen-run", "resume", "env-file", "help",
                   "concurrency", "timeout-ms", "max-retries", "reference-delay-ms",
                   "max-response-bytes")
UNIT_ID = re.compile(r"Unit id: (\S+)")
# A node output's name (FORMAT.md section 8): a letter, then letters, digits, "_", "." or "-"; and never a
# name that JavaScript objects inherit (a reader keeping names in plain objects would lose or misread it).
OUTPUT_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
PROTOTYPE_NAMES = frozenset((
    "__proto__", "constructor", "__defineGetter__", "__defineSetter__", "hasOwnProperty", "__lookupGetter__",
    "__lookupSetter__", "isPrototypeOf", "propertyIsEnumerable", "toString", "valueOf", "toLocaleString"))
# The outputs each stage declares (FORMAT.md, stage catalogue); a stage not listed here is not checked.
DECLARED_OUTPUTS = {
    "hotpot-select": ("selected", "report"),
    "hotpot-collect": ("collection", "check", "session_text"),
    "hotpot-corpus": ("corpus.json", "selection.json"),
    "hotpot-corpus-head": ("head",),
    "hotpot-question": ("question", "gold", "meta", "card"),
    "hotpot-rank": ("ranking",),
    "hotpot-summary": ("summary",),
    "hotpot-engine": ("window",),
    "hotpot-context": ("messages", "info"),
    "hotpot-answer": ("answer", "status"),
    "hotpot-score": ("score",),
    "hotpot-rows": ("rows",),
    "hotpot-aggregate": ("results.json", "aggregate.json"),
    "hotpot-ceilings": ("results.json", "aggregate.json"),
    "hotpot-report": ("stats.json", "REPORT.md", "report.html"),
    "sweep-trajectory": ("units",),
    "sweep-summary": ("summary",),
    "sweep-rank": ("ranking",),
    "sweep-engine": ("window",),
    "sweep-context": ("messages", "info"),
    "sweep-answer": ("answer", "status"),
    "sweep-score": ("score",),
    "sweep-aggregate": ("results.json", "aggregate.json"),
    "sweep-ceilings": ("results.json", "aggregate.json"),
    "sweep-report": ("stats.json", "REPORT.md", "report.html"),
    "engines-transcript": ("transcript",),
    "engines-engine": ("result", "window"),
    "engines-aggregate": ("results.json", "aggregate.json"),
    "engines-report": ("stats.json", "REPORT.md", "report.html"),
    "published-json": ("file",),
    "run-header": ("header",),
}
MAX_JSON_DEPTH = 512
# Strings (their escapes included), then everything but brackets: what is left is the text's nesting.
JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _count(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_INTEGER


def _ijson_ok(value):
    """I-JSON as a response must be: no lone surrogate, no integer beyond 2^53, finite numbers."""
    if isinstance(value, str):
        return not any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return abs(value) <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return math.isfinite(value) and not (value.is_integer() and abs(value) > MAX_SAFE_INTEGER)
    if isinstance(value, list):
        return all(_ijson_ok(v) for v in value)
    if isinstance(value, dict):
        return all(_ijson_ok(k) and _ijson_ok(v) for k, v in value.items())
    return False


def _acceptable(text):
    """Whether a kept raw body is in fact acceptable: JSON and I-JSON."""
    try:
        return _ijson_ok(json.loads(text, parse_constant=_refuse_constant))
    except (ValueError, TypeError, NotIJson):
        return False


def chat_reply(response, record):
    """The parse rule for a chat completion (FORMAT.md section 12), or None when it does not match."""
    try:
        choice = response["choices"][0]
        message = choice["message"]
        usage = response["usage"]
        model = response["model"]
        content = message["content"]
        finish = choice["finish_reason"]
    except (KeyError, IndexError, TypeError):
        return None
    counts = [usage.get(k) if isinstance(usage, dict) else None
              for k in ("prompt_tokens", "completion_tokens", "total_tokens")]
    if message.get("role") != "assistant" or not (content is None or isinstance(content, str)) \
            or not isinstance(model, str) or not model or not all(_count(c) for c in counts) \
            or not (finish is None or isinstance(finish, str)):
        return None
    return {
        "content": content or "",
        "usage": {"prompt_tokens": counts[0], "completion_tokens": counts[1], "total_tokens": counts[2]},
        "model": model,
        "finish_reason": "stop" if finish is None else finish,
        "_usage": {"input_tokens": counts[0], "output_tokens": counts[1]},
    }


def systemone_reply(response, record):
    """The parse rule for a System One reply: one noul in [0, 1] per question asked, or None."""
    try:
        answers = response["answers"]
        usage = response["usage"]
        model = response["model"]
        asked = len(record["request"]["questions"])
        nouls = [a["noul"] for a in answers if a.get("type") == "noul"]
    except (KeyError, TypeError, AttributeError):
        return None
    if len(nouls) != len(answers) or len(nouls) != asked or not isinstance(model, str) or not model \
            or not all(isinstance(n, (int, float)) and not isinstance(n, bool) and 0 <= n <= 1 for n in nouls) \
            or not isinstance(usage, dict) or not _count(usage.get("input_tokens")) \
            or not _count(usage.get("output_tokens")):
        return None
    return {"nouls": nouls, "model": model,
            "_usage": {"input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"]}}


class NotIJson(ValueError):
    """A value that RFC 8785 cannot represent (NaN, infinity, lone surrogate, unknown type)."""


# ---------------------------------------------------------------------------------------------------------
# RFC 8785 canonical JSON


def _number(value):
    """ECMAScript Number::toString of a double, as RFC 8785 requires (section 3.2.2.3)."""
    if isinstance(value, int) and abs(value) <= MAX_SAFE_INTEGER:
        return str(value)
    x = float(value)
    if math.isnan(x) or math.isinf(x):
        raise NotIJson("number %r" % value)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _number(-x)
    # repr gives the shortest digit string that reads back as the same double (like ECMAScript).
    m = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:e([+-]\d+))?", repr(x))
    if not m:
        raise NotIJson("number %r" % value)
    whole, fraction, exponent = m.group(1), m.group(2) or "", int(m.group(3) or 0)
    digits = whole + fraction
    point = len(whole) + exponent  # the decimal point sits after this many digits
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return "%se%s%d" % (mantissa, sign, abs(e))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(text):
    out = ['"']
    for ch in text:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            raise NotIJson("string with a lone surrogate")
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(name):
    return name.encode("utf-16-be", "surrogatepass")


def canonical(value):
    """RFC 8785 canonical JSON text of a parsed JSON value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    if isinstance(value, dict):
        names = sorted(value, key=_utf16_key)
        return "{" + ",".join(_string(k) + ":" + canonical(value[k]) for k in names) + "}"
    raise NotIJson("type %s" % type(value).__name__)


def canonical_bytes(value):
    return canonical(value).encode("utf-8")


def _refuse_constant(name):
    raise ValueError("%s is not JSON" % name)


def _unique_object(pairs):
    names = set()
    for name, _ in pairs:
        if name in names:
            raise ValueError("duplicate key %s (I-JSON forbids them)" % json.dumps(name))
        names.add(name)
    return dict(pairs)


def _check_depth(text):
    """Refuses nesting deeper than MAX_JSON_DEPTH before parsing (the parser recurses), without recursion."""
    brackets = NOT_BRACKET.sub("", JSON_STRING.sub("", text))
    if len(brackets) <= MAX_JSON_DEPTH:
        return
    depth = 0
    for c in brackets:
        if c in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ValueError("nested deeper than %d levels" % MAX_JSON_DEPTH)
        else:
            depth -= 1


def parse_json(data):
    """Parses UTF-8 JSON bytes strictly: no NaN/Infinity, no duplicate key, at most 512 deep."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError("not UTF-8 (%s)" % error)
    _check_depth(text)
    try:
        return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_object)
    except RecursionError:
        raise ValueError("nested too deep to read")


def sha256_hex(data):
    return hashlib.sha256(data).hexdigest()


def node_key(node):
    return sha256_hex(canonical_bytes({
        "inputs": node.get("inputs"),
        "params": node.get("params"),
        "stage": node.get("stage"),
        "version": node.get("version"),
    }))


# ---------------------------------------------------------------------------------------------------------
# Reading a hostile file system


class Unsafe(Exception):
    """A path that cannot be read safely."""


def _kind(mode):
    for test, name in ((stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISREG, "regular file")):
        if test(mode):
            return name
    return "special file"


def read_bounded(path, seen, limit, sink):
    """Reads the regular file `path` that lstat described as `seen`, at most `limit` bytes, into `sink`."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise Unsafe("unreadable (%s)" % (error.strerror or error))
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):
            raise Unsafe("became a %s while being checked" % _kind(now.st_mode))
        if (now.st_ino, now.st_dev) != (seen.st_ino, seen.st_dev):
            raise Unsafe("was replaced while being checked")
        total = 0
        while True:
            try:
                chunk = os.read(fd, min(CHUNK, limit + 1 - total))
            except OSError as error:
                raise Unsafe("unreadable (%s)" % (error.strerror or error))
            if not chunk:
                return
            total += len(chunk)
            if total > limit:
                raise Unsafe("grew beyond its size of %d bytes while being read" % limit)
            sink(chunk)
    finally:
        os.close(fd)


def hash_file(path, seen):
    digest = hashlib.sha256()
    read_bounded(path, seen, seen.st_size, digest.update)
    return digest.hexdigest()


def read_file(path, seen, cap):
    if seen.st_size > cap:
        raise Unsafe("too large (%d bytes; at most %d are read)" % (seen.st_size, cap))
    parts = []
    read_bounded(path, seen, seen.st_size, parts.append)
    return b"".join(parts)


# ---------------------------------------------------------------------------------------------------------
# The audit


class Audit:
    def __init__(self, run, strict=False, strict_modes=False):
        self.sources = []
        self.run = run
        self.strict = strict
        self.strict_modes = strict_modes
        self.loose_modes = {}  # octal mode text -> blobs with it (not 0444, modes not strict)
        self.problems = []
        self.notes = []
        self.entries = {}  # relative path -> lstat result (directories are walked, not listed)
        self.blobs = {}  # hash -> lstat of a regular blob file
        self.present = set()  # hashes whose file exists as a regular file
        self.header = None
        self.nodes = []
        self.files = {}
        self.manifest = None
        self.journal_sha256 = None
        self.journal_lines = 0

    def add(self, kind, subject, detail):
        self.problems.append("%s: %s: %s" % (kind, subject, detail))

    def path(self, rel):
        return os.path.join(self.run, *rel.split("/"))

    def describe(self, rel, info):
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(self.path(rel))
            except OSError:
                target = "?"
            return "a symlink (to %s), not a regular file inside the run" % json.dumps(target)
        return "a %s, not a regular file" % _kind(info.st_mode)

    # 1. structure -----------------------------------------------------------------------------------------
    def walk(self, rel_dir):
        directory = self.path(rel_dir) if rel_dir else self.run
        try:
            names = sorted(os.listdir(directory))
        except OSError as error:
            self.add("unreadable", rel_dir or ".", "directory cannot be listed (%s)" % error.strerror)
            return
        for name in names:
            rel = rel_dir + "/" + name if rel_dir else name
            try:
                info = os.lstat(self.path(rel))
            except OSError as error:
                self.add("unreadable", rel, "cannot be examined (%s)" % error.strerror)
                continue
            if stat.S_ISDIR(info.st_mode):
                if rel.startswith("objects/") and not OBJECT_FOLDER.match(rel):
                    self.add("unknown_file", rel, "a folder under objects/ that is neither a blob prefix nor objects/tmp")
                self.walk(rel)
            else:
                self.entries[rel] = info
                if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                    self.add(
                        "hard_link",
                        rel,
                        "%d hard links: its bytes are shared with a file outside the run" % info.st_nlink,
                    )

    def structure(self):
        self.walk("")
        loose, read_only, changed_later = [], 0, 0
        for rel, info in sorted(self.entries.items()):
            m = BLOB_PATH.match(rel)
            if not m:
                continue
            digest = m.group(1) + m.group(2)
            if not stat.S_ISREG(info.st_mode):
                self.add("not_regular", "blob " + digest, self.describe(rel, info))
                continue
            mode = stat.S_IMODE(info.st_mode)
            if mode != 0o444:
                loose.append((digest, mode))
                # changed more than 2 s after its content was written: a chmod, not a copy that lost its modes
                changed_later += info.st_ctime - info.st_mtime > 2
            else:
                read_only += 1
            self.blobs[digest] = info
        # A copy loses every blob's mode alike: one note; a writable blob beside read-only ones is a problem.
        if not self.strict_modes and read_only == 0 and changed_later == 0:
            for _, mode in loose:
                self.loose_modes["%04o" % mode] = self.loose_modes.get("%04o" % mode, 0) + 1
        else:
            why = "" if self.strict_modes else \
                " (%d other blob(s) are: not a copy's lost modes)" % read_only if read_only else \
                " (made writable after its content was written: not a copy's lost mode)"
            for digest, mode in loose:
                self.add("mode", "blob " + digest, "mode %04o, want 0444 (read-only)%s" % (mode, why))
        if self.loose_modes:
            self.notes.append(
                "note: %d of %d blob(s) are not read-only (mode %s, the writer's is 0444): a copy that lost its "
                "modes; their content is checked (--strict-modes counts them as problems)"
                % (sum(self.loose_modes.values()), len(self.blobs), ", ".join(sorted(self.loose_modes))))

    # 2. blobs ---------------------------------------------------------------------------------------------
    def hash_blobs(self):
        for digest, info in sorted(self.blobs.items()):
            rel = "objects/sha256/%s/%s" % (digest[:2], digest[2:])
            self.present.add(digest)
            try:
                actual = hash_file(self.path(rel), info)
            except Unsafe as error:
                self.add("unreadable", "blob " + digest, str(error))
                continue
            if actual != digest:
                self.add("altered", "blob " + digest, "content hashes to " + actual)

    # 3. records -------------------------------------------------------------------------------------------
    def record_file(self, name):
        info = self.entries.get(name)
        if info is None:
            return None
        if not stat.S_ISREG(info.st_mode):
            self.add("not_regular", name, self.describe(name, info))
            return False
        try:
            return read_file(self.path(name), info, MAX_RECORD_BYTES)
        except Unsafe as error:
            self.add("unreadable", name, str(error))
            return False

    def journal(self):
        data = self.record_file("journal.jsonl")
        if data is None:
            self.add("missing", "journal.jsonl", "the run has no journal")
        elif data == b"":
            self.add("journal", "journal.jsonl", "empty: a run's journal starts with its header")
        if not data:
            return
        self.journal_sha256 = sha256_hex(data)
        lines = data.split(b"\n")
        if lines[-1] != b"":
            self.add("journal", "journal.jsonl", "line %d: incomplete last line (no newline)" % len(lines))
        lines = lines[:-1]
        self.journal_lines = len(lines)
        prev = None
        for number, line in enumerate(lines, start=1):
            where = "line %d" % number
            try:
                entry = parse_json(line)
            except ValueError as error:
                self.add("journal", "journal.jsonl", "%s: not JSON (%s)" % (where, error))
                prev = sha256_hex(line)
                continue
            try:
                if canonical_bytes(entry) != line:
                    self.add("journal", "journal.jsonl", "%s: not in canonical form" % where)
            except NotIJson as error:
                self.add("journal", "journal.jsonl", "%s: not I-JSON (%s)" % (where, error))
            if not isinstance(entry, dict):
                self.add("journal", "journal.jsonl", "%s: not an object" % where)
                prev = sha256_hex(line)
                continue
            if entry.get("prev") != prev:
                self.add("journal", "journal.jsonl", "%s: chain broken (prev is not the hash of line %d)"
                         % (where, number - 1) if number > 1 else "%s: the first line's prev must be null" % where)
            kind = entry.get("type")
            if number == 1 and kind != "header":
                self.add("journal", "journal.jsonl", "%s: the first line must be the header" % where)
            if kind == "header":
                if number > 1:
                    self.add("journal", "journal.jsonl", "%s: a second header" % where)
                elif isinstance(entry.get("header"), dict):
                    self.header = entry["header"]
                else:
                    self.add("journal", "journal.jsonl", "%s: the header is not an object" % where)
            elif kind == "node":
                node = entry.get("node")
                if self.valid_node(node, "journal.jsonl " + where):
                    self.nodes.append(node)
            elif kind == "file":
                name, digest = entry.get("name"), entry.get("hash")
                if not isinstance(name, str) or not isinstance(digest, str) or not HEX64.match(digest):
                    self.add("journal", "journal.jsonl", "%s: a file record needs a name and a hash" % where)
                elif name in self.files:
                    self.add("journal", "journal.jsonl", "%s: file %s recorded twice" % (where, name))
                else:
                    self.files[name] = digest
            else:
                self.add("journal", "journal.jsonl", "%s: unknown record type %s" % (where, json.dumps(kind)))
            prev = sha256_hex(line)
        if self.header is not None and self.header.get("format") != FORMAT:
            self.add("journal", "journal.jsonl", "line 1: format %s is not %s (this auditor reads only %s)"
                     % (json.dumps(self.header.get("format")), FORMAT, FORMAT))

    def valid_node(self, node, where):
        if not isinstance(node, dict):
            self.add("journal", where, "a node must be an object")
            return False
        def hashes(value):
            return isinstance(value, dict) and all(isinstance(v, str) and HEX64.match(v) for v in value.values())
        ok = (isinstance(node.get("key"), str) and HEX64.match(node["key"]) and isinstance(node.get("stage"), str)
              and isinstance(node.get("version"), int) and not isinstance(node.get("version"), bool)
              and "params" in node and hashes(node.get("inputs")) and hashes(node.get("outputs"))
              and isinstance(node.get("requests"), list)
              and all(isinstance(h, str) and HEX64.match(h) for h in node["requests"]))
        if not ok:
            self.add("journal", where, "a node needs key, stage, version, params, inputs, outputs and requests")
            return False
        for name in node["inputs"]:
            if name in PROTOTYPE_NAMES:
                self.add("journal", where, "invalid node: input name %s is not a plain name" % json.dumps(name))
                return False
        for name in node["outputs"]:
            if name in PROTOTYPE_NAMES or not OUTPUT_NAME.match(name):
                self.add("journal", where, "invalid node: output name %s is not a plain name" % json.dumps(name))
                return False
        return True

    def manifest_check(self):
        data = self.record_file("manifest.json")
        if data is None:
            self.add("unfinished", "manifest.json", "missing: the run never finished")
            return
        if data is False:
            return
        try:
            manifest = parse_json(data)
        except ValueError as error:
            self.add("manifest", "manifest.json", "not JSON (%s)" % error)
            return
        if not isinstance(manifest, dict):
            self.add("manifest", "manifest.json", "not an object")
            return
        self.manifest = manifest
        missing = [f for f in HEADER_FIELDS + ("finished", "nodes", "files", "journal") if f not in manifest]
        if missing:
            self.add("manifest", "manifest.json", "missing field(s): " + ", ".join(missing))
            return
        if self.header is not None:
            for field in HEADER_FIELDS:
                if canonical(manifest[field]) != canonical(self.header.get(field)):
                    self.add("manifest", "manifest.json " + field, "differs from the journal's header line")
        journal = manifest["journal"]
        if not isinstance(journal, dict) or journal.get("sha256") != self.journal_sha256 \
                or journal.get("lines") != self.journal_lines:
            self.add("journal", "journal.jsonl", "does not match the digest and line count in manifest.json")
        nodes = manifest["nodes"] if isinstance(manifest["nodes"], list) else []
        for i in range(max(len(nodes), len(self.nodes))):
            a = self.nodes[i] if i < len(self.nodes) else None
            b = nodes[i] if i < len(nodes) else None
            if a is None or b is None:
                self.add("manifest", "node #%d" % i, "in the journal only" if b is None else "in manifest.json only")
            elif canonical(a) != canonical(b):
                self.add("manifest", "node #%d" % i, "differs between manifest.json and the journal")
        if not isinstance(manifest["files"], dict) or canonical(manifest["files"]) != canonical(self.files):
            self.add("manifest", "manifest.json files", "differ from the journal's file records")

    # 4. the DAG -------------------------------------------------------------------------------------------
    def dag(self):
        header = self.header or {}
        sources = header.get("sources") if isinstance(header.get("sources"), dict) else {}
        for name, digest in sorted(sources.items()):
            if digest not in self.present:
                self.add("missing", "source " + name, "blob %s is not in the store" % digest)
        produced_at = {}
        for index, node in enumerate(self.nodes):
            for digest in node["outputs"].values():
                produced_at.setdefault(digest, index)
        source_hashes = set(sources.values())
        keys = {}
        for index, node in enumerate(self.nodes):
            name = "node #%d %s (%s)" % (index, node.get("label") or node["stage"], node["key"][:12])
            try:
                expected = node_key(node)
            except NotIJson as error:
                self.add("key_mismatch", name, "its key record is not I-JSON (%s)" % error)
                expected = None
            if expected is not None and expected != node["key"]:
                self.add("key_mismatch", name, "recomputed key is " + expected)
            if node["key"] in keys:
                self.add("manifest", name, "same key as node #%d" % keys[node["key"]])
            keys.setdefault(node["key"], index)
            for input_name, digest in sorted(node["inputs"].items()):
                if digest not in self.present:
                    self.add("missing", "%s input %s" % (name, input_name), "blob %s is not in the store" % digest)
                if digest in source_hashes:
                    continue
                producer = produced_at.get(digest)
                if producer is None:
                    self.add("dangling", "%s input %s" % (name, input_name),
                             "blob %s was produced by no node and is no declared source" % digest)
                elif producer >= index:
                    self.add("cycle", "%s input %s" % (name, input_name),
                             "produced only by node #%d, which is not earlier" % producer)
            declared = DECLARED_OUTPUTS.get(node["stage"])
            for output_name, digest in sorted(node["outputs"].items()):
                if digest not in self.present:
                    self.add("missing", "%s output %s" % (name, output_name), "blob %s is not in the store" % digest)
                if declared is not None and output_name not in declared:
                    self.add("undeclared_output", "%s output %s" % (name, output_name),
                             "stage %s declares no such output" % node["stage"])
            for i, digest in enumerate(node["requests"]):
                if digest not in self.present:
                    self.add("missing", "%s request %d" % (name, i), "blob %s is not in the store" % digest)
                else:
                    self.call_record(digest, "%s request %d" % (name, i))
        return produced_at, source_hashes

    def call_record(self, digest, subject):
        rel = "objects/sha256/%s/%s" % (digest[:2], digest[2:])
        try:
            data = read_file(self.path(rel), self.blobs[digest], MAX_RECORD_BYTES)
            record = parse_json(data)
            if canonical_bytes(record) != data:
                self.add("call_record", subject, "blob %s is not canonical JSON" % digest)
        except (Unsafe, ValueError, NotIJson) as error:
            self.add("call_record", subject, "blob %s is not a JSON call record (%s)" % (digest, error))
            return
        if not isinstance(record, dict) or record.get("endpoint") not in ("chat", "systemone") \
                or record.get("status") not in ("ok", "failed") or "request" not in record \
                or not isinstance(record.get("attempts"), int):
            self.add("call_record", subject, "blob %s lacks endpoint, request, status or attempts" % digest)

    # 5. published files and unknown files -----------------------------------------------------------------
    def published_by_node(self, name, digest):
        """An output named as the file, or the `file` output of a node whose params name it."""
        for node in self.nodes:
            outputs = node["outputs"]
            if outputs.get(name) == digest:
                return True
            params = node.get("params")
            if outputs.get("file") == digest and isinstance(params, dict) and params.get("name") == name:
                return True
        return False

    def published(self, produced_at, source_hashes):
        for name, digest in sorted(self.files.items()):
            subject = "file " + name
            if not EXPORT_NAME.match(name) or name in ("journal.jsonl", "manifest.json", "objects"):
                self.add("manifest", subject, "not a plain published file name")
                continue
            if digest not in self.present:
                self.add("missing", subject, "its blob %s is not in the store" % digest)
            if not self.published_by_node(name, digest) and digest not in source_hashes:
                self.add("not_node_output", subject,
                         "its blob %s is no output %s of a node, nor a declared source" % (digest, json.dumps(name)))
            info = self.entries.get(name)
            if info is None:
                self.add("missing", subject, "listed but not present")
                continue
            if not stat.S_ISREG(info.st_mode):
                self.add("not_regular", subject, self.describe(name, info))
                continue
            try:
                actual = hash_file(self.path(name), info)
            except Unsafe as error:
                self.add("unreadable", subject, str(error))
                continue
            if actual != digest:
                self.add("file_mismatch", subject, "content hashes to %s, recorded %s" % (actual, digest))
        sealed = "manifest.json" in self.entries
        for rel, info in sorted(self.entries.items()):
            if BLOB_PATH.match(rel) or rel in ("journal.jsonl", "manifest.json") or rel in self.files:
                continue
            if rel == ".lock" and stat.S_ISREG(info.st_mode) and not sealed:
                continue  # the writer's lock of an unfinished run
            self.add("unknown_file", rel, "not part of the run" if stat.S_ISREG(info.st_mode)
                     else "not part of the run (%s)" % self.describe(rel, info))
        if self.manifest is not None:
            referenced = set(self.files.values()) | source_hashes
            for node in self.nodes:
                referenced.update(node["inputs"].values(), node["outputs"].values(), node["requests"])
            for digest in sorted(self.blobs):
                if digest not in referenced:
                    self.add("unknown_file", "objects/sha256/%s/%s" % (digest[:2], digest[2:]),
                             "blob referenced by nothing")

    # 6. what the models said (--strict): the parse rule of FORMAT.md section 12 ------------------------------
    def blob_json(self, digest):
        info = self.blobs.get(digest)
        if info is None:
            return None
        try:
            return parse_json(read_file(self.path("objects/sha256/%s/%s" % (digest[:2], digest[2:])), info,
                                        MAX_RECORD_BYTES))
        except (Unsafe, ValueError, NotIJson):
            return None

    def derivations(self):
        header = self.header or {}
        bindings = [n for n in self.nodes if n.get("stage") == "run-header"]
        if len(bindings) != 1:
            self.add("header_mismatch", "header", "%d run-header nodes (one expected)" % len(bindings))
        else:
            params = bindings[0].get("params") or {}
            options = (header.get("invocation") or {}).get("options")
            if isinstance(options, dict):
                sources = header.get("sources") if isinstance(header.get("sources"), dict) else {}
                options = {k: v for k, v in options.items() if k not in UNBOUND_OPTIONS and k not in sources}
            if canonical(params.get("options")) != canonical(options):
                self.add("header_mismatch", "header", "invocation.options differ from the run-header node's params")
            if canonical(params.get("protocol")) != canonical(header.get("protocol")):
                self.add("header_mismatch", "header", "protocol differs from the run-header node's params")
        self.compression_usage()
        self.answering_models()
        for index, node in enumerate(self.nodes):
            name = "node #%d %s (%s)" % (index, node.get("label") or node["stage"], node["key"][:12])
            records = [self.blob_json(d) for d in node["requests"]]
            if any(not isinstance(r, dict) for r in records):
                continue  # named by the record checks
            usage = node.get("usage") or {}
            summed = {"calls": len(records),
                      "input_tokens": sum((r.get("usage") or {}).get("input_tokens", 0) for r in records),
                      "output_tokens": sum((r.get("usage") or {}).get("output_tokens", 0) for r in records)}
            if canonical(usage) != canonical(summed):
                self.add("usage_mismatch", name, "usage %s is not the sum of its records' %s"
                         % (canonical(usage), canonical(summed)))
            stage = node["stage"]
            if stage not in DERIVED_STAGES:
                continue  # outside engines and collections: their records are not what their outputs derive from
            derived = [self.derive_record(r, "%s request %d" % (name, i)) for i, r in enumerate(records)]
            outputs = node["outputs"]
            if stage in ("hotpot-answer", "sweep-answer"):
                self.check_answer(node, name, derived)
            elif stage in ("hotpot-summary", "sweep-summary"):
                summary = self.blob_json(outputs.get("summary", ""))
                if isinstance(summary, dict) and bool(summary.get("ok")) != (node["status"] == "ok"):
                    self.add("status_mismatch", name, "the node says %s; its summary output says ok=%s"
                             % (node["status"], json.dumps(summary.get("ok"))))
            elif stage in ("hotpot-rank", "sweep-rank"):
                self.check_ranking(node, name, records, derived)

    def compression_usage(self):
        """An aggregate's or report's compression_usage against the nodes it counts (FORMAT.md section 12)."""
        def own(nodes):
            total = {"calls": 0, "input_tokens": 0, "output_tokens": 0}
            for n in nodes:
                if "reused_from" not in n:
                    for k in total:
                        total[k] += (n.get("usage") or {}).get(k, 0)
            return total
        nodes = self.nodes
        sweep = own([n for n in nodes if n["stage"] in ("sweep-summary", "sweep-rank", "sweep-engine")])
        rankings = own([n for n in nodes if n["stage"] == "hotpot-rank"])
        aggregates = [n for n in nodes if n["stage"] == "hotpot-aggregate"]
        for index, node in enumerate(nodes):
            recorded = (node.get("params") or {}).get("compression_usage")
            if recorded is None:
                continue
            name = "node #%d %s (%s)" % (index, node.get("label") or node["stage"], node["key"][:12])
            if node["stage"].startswith("sweep-"):
                if canonical(recorded) != canonical(sweep):
                    self.add("usage_mismatch", name, "compression_usage is not the sum of the summary, ranking "
                             "and engine nodes' usage %s" % canonical(sweep))
                continue
            if node["stage"] != "hotpot-aggregate" or not isinstance(recorded, dict):
                continue
            m = re.search(r"cap=(\d+)", node.get("label") or "")
            cap = int(m.group(1)) if len(aggregates) > 1 and m else None
            for method, usage in sorted(recorded.items()):
                mine = own([n for n in nodes if n["stage"] in ("hotpot-summary", "hotpot-engine")
                            and (n.get("params") or {}).get("method") == method
                            and (cap is None or (n.get("params") or {}).get("input_cap") == cap)])
                both = {k: mine[k] + rankings[k] for k in mine}
                if canonical(usage) not in (canonical(mine), canonical(both)):
                    self.add("usage_mismatch", name, "compression_usage of %s is neither its summary and engine "
                             "nodes' usage nor that with the rankings'" % method)

    def answering_models(self):
        """An aggregate's answering_models against the call records they count (FORMAT.md section 7)."""
        nodes = self.nodes
        counted = {}

        def models_of(node):
            if node["key"] not in counted:
                chat, systemone = {}, {}
                for digest in node["requests"]:
                    record = self.blob_json(digest)
                    if not isinstance(record, dict) or not isinstance(record.get("model"), str):
                        continue
                    into = systemone if record.get("endpoint") == "systemone" else chat
                    into[record["model"]] = into.get(record["model"], 0) + 1
                counted[node["key"]] = (chat, systemone)
            return counted[node["key"]]

        def answered(roles, role):
            value = (roles or {}).get(role) if isinstance(roles, dict) else None
            return (value or {}).get("answered", {}) if isinstance(value, dict) else {}

        answer_stage = {"hotpot-aggregate": "hotpot-answer", "sweep-aggregate": "sweep-answer"}
        for index, node in enumerate(nodes):
            recorded = (node.get("params") or {}).get("answering_models")
            if not isinstance(recorded, dict):
                continue
            name = "node #%d %s (%s)" % (index, node.get("label") or node["stage"], node["key"][:12])
            stage = node["stage"]
            if stage in answer_stage:
                several = len([n for n in nodes if n["stage"] == stage]) > 1
                m = re.search(r"cap=(\d+)", node.get("label") or "")
                cap = int(m.group(1)) if several and m else None
                for group, roles in sorted(recorded.items()):
                    expected = {}
                    for answer in nodes:
                        params = answer.get("params") or {}
                        if answer["stage"] != answer_stage[stage]:
                            continue
                        if params.get("method", params.get("kind")) != group:
                            continue
                        if cap is not None and params.get("input_cap") is not None and params.get("input_cap") != cap:
                            continue
                        for model, calls in models_of(answer)[0].items():
                            expected[model] = expected.get(model, 0) + calls
                    if canonical(answered(roles, "chat")) != canonical(expected):
                        self.add("output_not_from_response", name, "answering_models of %s (chat) is not its "
                                 "call records' %s" % (group, canonical(expected)))
            elif stage == "engines-aggregate":
                for row, roles in sorted(recorded.items()):
                    parts = row.split(":")
                    budget, engine_name = (parts[1], ":".join(parts[2:])) if len(parts) >= 3 else (None, None)
                    engines = [n for n in nodes if n["stage"] == "engines-engine"
                               and (n.get("params") or {}).get("budget") == budget
                               and (n.get("params") or {}).get("name", (n.get("params") or {}).get("engine"))
                               == engine_name]
                    if not engines:
                        self.add("output_not_from_response", name, "answering_models names %s, which no engine "
                                 "node is" % row)
                        continue
                    chat, systemone = models_of(engines[0])
                    for role, expected in (("chat", chat), ("decision", systemone)):
                        if canonical(answered(roles, role)) != canonical(expected):
                            self.add("output_not_from_response", name, "answering_models of %s (%s) is not its "
                                     "call records' %s" % (row, role, canonical(expected)))

    def derive_record(self, record, subject):
        """The parse rule: what a record's response says (ok, reply) or (False, None)."""
        endpoint = record.get("endpoint")
        raw = record.get("response_raw")
        status = record.get("http_status", 200 if record.get("status") == "ok" else None)
        reply = None
        if raw is not None:
            if raw.get("complete") and raw.get("encoding") == "utf-8" and _acceptable(raw.get("data")):
                self.add("output_not_from_response", subject, "the record refused a raw body that is acceptable I-JSON")
        elif record.get("response") is not None and status is not None and 200 <= status < 300:
            reply = (chat_reply if endpoint == "chat" else systemone_reply)(record.get("response"), record)
        ok = reply is not None
        if ok != (record.get("status") == "ok"):
            self.add("status_mismatch", subject, "the record says %s; its response gives %s"
                     % (record.get("status"), "ok" if ok else "failed"))
        if ok and record.get("status") == "ok":
            if canonical(record.get("usage")) != canonical(reply["_usage"]):
                self.add("usage_mismatch", subject, "the record's usage %s is not its response's %s"
                         % (canonical(record.get("usage")), canonical(reply["_usage"])))
            if record.get("model") != reply["model"]:
                self.add("output_not_from_response", subject, "the record's model is not its response's")
        return reply

    def check_answer(self, node, name, derived):
        outputs = node["outputs"]
        status = self.blob_json(outputs.get("status", ""))
        if isinstance(status, dict):
            if status.get("status") != node["status"]:
                self.add("status_mismatch", name, "the node says %s; its status output says %s"
                         % (node["status"], status.get("status")))
            elif (status.get("reason") or None) != (node.get("reason") or None):
                self.add("status_mismatch", name, "the node's reason is not its status output's")
        answer = self.blob_json(outputs.get("answer", "")) if "answer" in outputs else None
        if len(derived) > 1:
            self.add("output_not_from_response", name, "an answer node holds %d records (one at most)" % len(derived))
            return
        reply = derived[0] if derived else None
        if reply is None:
            if answer is not None:
                self.add("output_not_from_response", name, "an answer output without a successful call")
            if node["status"] == "ok":
                self.add("status_mismatch", name, "the node says ok without a successful call")
            return
        want = {k: reply[k] for k in ("content", "usage", "model", "finish_reason")}
        if canonical(answer) != canonical(want):
            self.add("output_not_from_response", name, "the answer output is not its record's reply")

    def check_ranking(self, node, name, records, derived):
        ranking = self.blob_json(node["outputs"].get("ranking", ""))
        if not isinstance(ranking, dict):
            return
        ok = bool(derived) and all(d is not None for d in derived)
        if bool(ranking.get("ok")) != (node["status"] == "ok") or (ranking.get("ok") and not ok):
            self.add("status_mismatch", name, "the node says %s; its ranking says ok=%s; its records %s"
                     % (node["status"], json.dumps(ranking.get("ok")), "all answered" if ok else "failed"))
            return
        if not ranking.get("ok"):
            return
        probabilities = {}
        for record, reply in zip(records, derived):
            for question, noul in zip(record["request"].get("questions") or [], reply["nouls"]):
                m = UNIT_ID.search(question.get("instructions", ""))
                if m:
                    probabilities[m.group(1)] = noul
        if canonical(probabilities) != canonical(ranking.get("probabilities")):
            self.add("output_not_from_response", name, "the ranking's probabilities are not its records' nouls")
        order = sorted(probabilities, key=lambda u: (-probabilities[u], _utf16_key(u)))
        if order != ranking.get("order"):
            self.add("output_not_from_response", name, "the ranking's order does not follow its probabilities")

    def program_source(self):
        """The program's source files the run keeps: [(path, sha256, bytes)], problems added."""
        header = self.header or {}
        sources = header.get("sources") if isinstance(header.get("sources"), dict) else {}
        digest = sources.get("program")
        info = self.blobs.get(digest) if isinstance(digest, str) else None
        if info is None:
            return []
        try:
            blob = read_file(self.path("objects/sha256/%s/%s" % (digest[:2], digest[2:])), info, 1 << 30)
            blob, form = unpack_program_source(blob)
            newline = blob.index(b"\n")
            head = json.loads(blob[:newline].decode("utf-8"))
            if head.get("format") != form or not isinstance(head.get("files"), list):
                raise ValueError("not a %s blob" % form)
        except (Unsafe, ValueError, AttributeError) as error:
            self.add("altered", "program source", str(error))
            return []
        files, at, covered = [], newline + 1, []
        for entry in head["files"]:
            if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)
                    and isinstance(entry[1], str) and isinstance(entry[2], int) and entry[2] >= 0):
                self.add("altered", "program source", "a files entry is not [path, sha256, bytes]")
                return files
            path, recorded, size = entry
            body = blob[at:at + size]
            at += size
            actual = sha256_hex(body)
            if actual != recorded or len(body) != size:
                self.add("altered", "program source file " + path,
                         "changed: its bytes hash to %s, recorded %s" % (actual, recorded))
            if (path.startswith("src/") and path.endswith(".ts")) or path in ("main.ts", "deno.lock"):
                covered.append([path, recorded])
            files.append((path, recorded, size))
        if at != len(blob):
            self.add("altered", "program source", "%d bytes after the last file" % (len(blob) - at))
        program = header.get("program") if isinstance(header.get("program"), dict) else {}
        listed = sha256_hex(canonical_bytes(covered))
        if listed != program.get("source_hash"):
            self.add("altered", "program source",
                     "its files' list hashes to %s, the header's program.source_hash is %s"
                     % (listed, program.get("source_hash")))
        return files

    def audit(self):
        self.structure()
        self.hash_blobs()
        self.journal()
        self.manifest_check()
        produced_at, source_hashes = self.dag()
        self.sources = self.program_source()
        self.published(produced_at, source_hashes)
        if self.strict and self.manifest is not None and (self.header or {}).get("suite") in SUITES:
            self.derivations()
        return self.problems


def unpack_program_source(blob):
    """The layout a program-source blob holds and its format: "@2" is gzip (members back to back, as Deno's
    gunzip reads them; at most MAX_PROGRAM_SOURCE_BYTES unpacked), "@1" (older runs) is stored plain."""
    if blob[:2] != b"\x1f\x8b":
        return blob, "compaction-bench/program-source@1"
    out, rest = [], blob
    try:
        while rest:
            unzip = zlib.decompressobj(16 + zlib.MAX_WBITS)
            out.append(unzip.decompress(rest, MAX_PROGRAM_SOURCE_BYTES + 1 - sum(map(len, out))))
            if unzip.unconsumed_tail or sum(map(len, out)) > MAX_PROGRAM_SOURCE_BYTES:
                raise ValueError("the compaction-bench/program-source@2 blob unpacks to more than %d bytes"
                                 % MAX_PROGRAM_SOURCE_BYTES)
            if not unzip.eof:
                raise ValueError("the compaction-bench/program-source@2 blob is not valid gzip (truncated)")
            rest = unzip.unused_data
    except zlib.error as error:
        raise ValueError("the compaction-bench/program-source@2 blob is not valid gzip (%s)" % error)
    return b"".join(out), "compaction-bench/program-source@2"


MAX_PROGRAM_SOURCE_BYTES = 64 * 1024 ** 2


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text):
    """A problem line with its control and bidi characters shown as escapes (a file name cannot forge a line)."""
    return _UNPRINTABLE.sub(lambda m: _NAMED.get(m.group(0), "\\u%04x" % ord(m.group(0))), text)


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(__doc__)
        return 0
    flags = set()
    while args and args[0] in ("--strict", "--strict-modes", "--sources"):
        flags.add(args.pop(0))
    strict, strict_modes = "--strict" in flags, "--strict-modes" in flags
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write("usage: audit_run.py [--strict] [--strict-modes] [--sources] RUN\n")
        return 2
    run = args[0]
    if not os.path.isdir(run):
        sys.stderr.write("audit_run.py: %s is not a directory\n" % run)
        return 2
    audit = Audit(run, strict, strict_modes)
    problems = audit.audit()
    if "--sources" in flags:
        for path, digest, size in audit.sources:
            print("%s %8d %s" % (digest, size, path))
    if audit.sources:
        sys.stderr.write("note: the run keeps %d program source files (--sources lists them)\n" % len(audit.sources))
    for line in problems:
        print(printable(line))
    for line in audit.notes:
        sys.stderr.write(printable(line) + "\n")
    if problems:
        sys.stderr.write("FAILED: %s: %d problem(s)\n" % (run, len(problems)))
        return 1
    sys.stderr.write("ok: %s: %d blobs, %d nodes, %d published files\n"
                     % (run, len(audit.blobs), len(audit.nodes), len(audit.files)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
