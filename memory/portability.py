"""Export and import of one user's whole memory as JSON Lines (no embeddings).

Format (version 2): one JSON object per line. The first is a header
`{"type": "header", "format": "gaia-memory-export", "version": 2, ...}`; then `session`,
`turn`, `tool_call` and `knowledge` records (each item with its earlier `versions`, oldest
first, see memory/versions.py); the last line is
`{"type": "end", "records": N, "counts": {...}}`. Ids in a file are the exporter's ids and
only link records of the same file (a turn's session, an item's `superseded_by` and
`source_turn`); they never name rows of the importing account. Version 1 files (the same
records, no last line) are still imported.

Export streams from data it has checked: each record is made valid (text that is not
Unicode scalar values, NUL characters and non-finite numbers are repaired, and counted
as `repaired` on the last line) before its line is sent, and the last line says how many
records came before it, so a file cut short is recognised: import refuses a version 2
file without that line, or whose count differs.

Import is two passes over the file (`check_lines`, then `store_lines`):

1. Every line is checked before anything is stored: valid UTF-8 and JSON, no lone
   surrogates or NUL in any key or value, known record types and fields, the owning
   services' validation (`conversations.services.*_import_clean`,
   `memory.imports.memory_import_clean`: the same rules as a write; a token's import
   cannot raise trust: its items are a token's writes, and its rows name only agents
   the account has, while the owner's import creates at most NEW_AGENTS_MAX new ones)
   and the links between records. A bad line is a ValidationError
   naming it, and nothing is stored.
2. Sessions, turns, tool calls, then items are stored through those services in chunks,
   each its own short transaction (`core.chunks`), so an import never holds the write
   lock for long. What is already there is skipped (importing twice adds nothing); an
   item is stored after the item that superseded it, already linked to it, so a
   superseded item is never active and near-duplicate folding never merges two items
   of one file (see `memory_import_many`). Imported turns and items are embedded (or
   queued for embedding) as each chunk commits.

Large files are stored and imported by a worker in slices (memory.import_jobs); a
`Journal` then records which lines are done, so a run that stops resumes where it was.
"""

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Prefetch
from django.utils import timezone

from accounts.agents import agent_by_name, agent_list
from accounts.services import agent_get_or_create
from conversations.models import Session, ToolCall, Turn
from conversations.services import (
    session_import,
    session_import_clean,
    tool_call_import_clean,
    tool_calls_import,
    turn_import_clean,
    turns_import,
)
from core.chunks import Sizer, pause
from core.validation import clean_short
from memory.imports import memory_import_allowed, memory_import_clean, memory_import_many
from memory.models import KnowledgeItem, MemoryVersion

FORMAT = "gaia-memory-export"
VERSION = 2
VERSIONS = (1, 2)
LINE_MAX = 1_000_000  # bytes (characters) per line
DEPTH_MAX = 32
CHUNK_FIRST, CHUNK_MAX = 50, 500  # records per write transaction
NEW_AGENTS_MAX = 20  # agents one import may create (the owner's import only)
KINDS = ("session", "turn", "tool_call", "knowledge")
COUNTED = {"session": "sessions", "turn": "turns", "tool_call": "tool_calls",
           "knowledge": "knowledge"}  # fmt: skip
_ITEM_FIELDS = [
    "id", "category", "content", "domain", "context", "entity", "sensitive", "pinned", "source",
    "confidence", "importance", "metadata", "use_count", "created_at", "updated_at",
    "last_used", "due_at", "reminded_at", "forgotten_at",
]  # fmt: skip
_VERSION_FIELDS = [
    "content", "category", "domain", "context", "entity", "sensitive", "confidence",
    "metadata", "due_at", "source", "created_at", "change_source", "token_name", "reason",
]  # fmt: skip
FIELDS = {
    "header": {"type", "format", "version", "exported_at", "username"},
    "end": {"type", "records", "counts", "repaired"},
    "session": {"type", "session_id", "context", "created_at", "last_turn_at",
                "consolidated_at", "summary"},
    "turn": {"type", "id", "session_id", "role", "speaker", "content", "context", "timestamp",
             "created_at", "consolidated_at", "extraction_status", "agent"},
    "tool_call": {"type", "id", "session_id", "tool_name", "args", "result_summary",
                  "success", "error", "duration_ms", "timestamp", "agent"},
    "knowledge": {"type", *_ITEM_FIELDS, "superseded_by", "source_turn", "versions", "agent"},
}  # fmt: skip


# --- Text validity. Private for now: the shared rule of every door will replace it.

_BAD_TEXT = re.compile("[\ud800-\udfff\x00]")


def _text_problem(text: str) -> str | None:
    found = _BAD_TEXT.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "a NUL character"
    return f"a lone surrogate (U+{ord(found.group()):04X})"


def _invalid_text(value: Any) -> str | None:
    """What is wrong with the text in a decoded JSON value (keys included), or None."""
    stack = [(value, 0)]
    while stack:
        current, depth = stack.pop()
        if depth > DEPTH_MAX:
            return f"nesting deeper than {DEPTH_MAX} levels"
        if isinstance(current, str):
            problem = _text_problem(current)
            if problem:
                return problem
        elif isinstance(current, dict):
            stack.extend((key, depth + 1) for key in current)
            stack.extend((item, depth + 1) for item in current.values())
        elif isinstance(current, list):
            stack.extend((item, depth + 1) for item in current)
    return None


def _repaired(value: Any) -> tuple[Any, bool]:
    """`value` with bad text (see _invalid_text) and non-finite numbers made valid:
    surrogates become U+FFFD, NUL characters go, NaN and infinities become null."""
    if isinstance(value, str):
        if _BAD_TEXT.search(value) is None:
            return value, False
        return _BAD_TEXT.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", value), True
    if isinstance(value, float):
        return (value, False) if value == value and abs(value) != float("inf") else (None, True)
    if isinstance(value, dict):
        pairs = [(_repaired(k), _repaired(v)) for k, v in value.items()]
        changed = any(k[1] or v[1] for k, v in pairs)
        return ({k[0]: v[0] for k, v in pairs} if changed else value), changed
    if isinstance(value, list):
        items = [_repaired(item) for item in value]
        changed = any(flag for _, flag in items)
        return ([item for item, _ in items] if changed else value), changed
    return value, False


# --- Export


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


# Line breaks JSON leaves raw in strings (it escapes those under U+0020): escaped, so no
# line reader (Python's splitlines, JavaScript) ever splits a record.
_RAW_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_RAW_BREAK = re.compile("[\x85\u2028\u2029]")


def _line(record: dict[str, Any]) -> bytes:
    text = json.dumps(record, ensure_ascii=False, allow_nan=False)
    return (_RAW_BREAK.sub(lambda m: _RAW_BREAKS[m.group()], text) + "\n").encode()


def _encode(record: dict[str, Any]) -> tuple[bytes, bool]:
    """The record's line, as UTF-8 JSON that any importer accepts; and whether it had to
    be repaired."""
    try:
        return _line(record), False
    except (UnicodeEncodeError, ValueError):
        pass
    record, _ = _repaired(record)
    return _line(record), True


def _records(user: Any) -> Iterator[dict[str, Any]]:
    """The user's rows as export records: sessions, turns, tool calls, knowledge."""
    for session in Session.objects.for_user(user).order_by("pk").iterator(chunk_size=500):
        yield {
            "type": "session",
            "session_id": session.session_id,
            "context": session.context,
            "created_at": _iso(session.created_at),
            "last_turn_at": _iso(session.last_turn_at),
            "consolidated_at": _iso(session.consolidated_at),
            "summary": session.summary,
        }
    turns = Turn.objects.for_user(user).select_related("session", "agent").order_by("pk")
    for turn in turns.iterator(chunk_size=500):
        yield {
            "type": "turn",
            "id": turn.pk,
            "session_id": turn.session.session_id,
            "role": turn.role,
            "speaker": turn.speaker,
            "content": turn.content,
            "context": turn.context,
            "timestamp": _iso(turn.timestamp),
            "created_at": _iso(turn.created_at),
            "consolidated_at": _iso(turn.consolidated_at),
            "extraction_status": turn.extraction_status,
            "agent": _agent_name(turn),
        }
    calls = ToolCall.objects.for_user(user).select_related("session", "agent").order_by("pk")
    for call in calls.iterator(chunk_size=500):
        yield {
            "type": "tool_call",
            "id": call.pk,
            "session_id": call.session.session_id if call.session else None,
            "tool_name": call.tool_name,
            "args": call.args,
            "result_summary": call.result_summary,
            "success": call.success,
            "error": call.error,
            "duration_ms": call.duration_ms,
            "timestamp": _iso(call.timestamp),
            "agent": _agent_name(call),
        }
    items = (
        KnowledgeItem.objects.for_user(user)
        .select_related("agent")
        .order_by("pk")
        .defer("embedding")
    )
    items = items.prefetch_related(Prefetch("versions", MemoryVersion.objects.order_by("pk")))
    for item in items.iterator(chunk_size=500):
        record: dict[str, Any] = {"type": "knowledge"}
        for name in _ITEM_FIELDS:
            value = getattr(item, name)
            record[name] = _iso(value) if isinstance(value, datetime) else value
        record["superseded_by"] = item.superseded_by_id
        record["source_turn"] = item.source_turn_id
        record["versions"] = [_version(v) for v in item.versions.all()]
        record["agent"] = _agent_name(item)
        yield record


def _agent_name(row: Any) -> str | None:
    """The name of the agent that wrote a row (turn, tool call, item), or None."""
    return row.agent.name if row.agent_id else None


def _version(version: MemoryVersion) -> dict[str, Any]:
    """An earlier version of an item, as its export record carries it (oldest first)."""
    values = {name: getattr(version, name) for name in _VERSION_FIELDS}
    return {k: _iso(v) if isinstance(v, datetime) else v for k, v in values.items()}


def export_lines(*, user: Any) -> Iterator[bytes]:
    """The user's memory as JSON Lines (UTF-8), streamed: the header, sessions, turns,
    tool calls, knowledge (forgotten and superseded items included, with lineage), and a
    last line counting the records."""
    header = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "exported_at": timezone.now().isoformat(),
        "username": user.get_username(),
    }
    yield _encode(header)[0]
    counts = {COUNTED[kind]: 0 for kind in KINDS}
    repaired = 0
    for record in _records(user):
        line, fixed = _encode(record)
        counts[COUNTED[record["type"]]] += 1
        repaired += fixed
        yield line
    end = {"type": "end", "records": sum(counts.values()), "counts": counts}
    yield _encode({**end, "repaired": repaired})[0]


# --- Import, pass 1: check every line


def _line_error(number: int, error: ValidationError | str) -> ValidationError:
    if isinstance(error, str):
        return ValidationError({f"line {number}": error})
    if hasattr(error, "error_dict"):
        messages = [f"{name}: {m}" for name, ms in error.message_dict.items() for m in ms]
    else:
        messages = error.messages
    return ValidationError({f"line {number}": messages})


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def parse(lines: Iterable[bytes | str], after: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for each non-blank line after line `after`; ValidationError
    naming a bad line."""
    for number, raw in enumerate(lines, start=1):
        if number <= after:
            continue
        if len(raw) > LINE_MAX:
            raise _line_error(number, f"Longer than {LINE_MAX} bytes.")
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise _line_error(number, "Not valid UTF-8.") from None
        text = raw.removeprefix("\ufeff") if number == 1 else raw
        if not text.strip():
            continue
        try:
            record = json.loads(text, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            raise _line_error(number, "Not valid JSON.") from None
        if not isinstance(record, dict):
            raise _line_error(number, "Each line must be a JSON object.")
        problem = _invalid_text(record)
        if problem:
            raise _line_error(number, f"Holds {problem}: text must be valid Unicode.")
        yield number, record


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def _clean(user: Any, kind: str, record: dict[str, Any], trusted: bool) -> dict[str, Any]:
    """The owning service's validation of one record (it writes nothing); the name of the
    agent that wrote it, if any, comes back as `agent_name`."""
    row = _clean_kind(user, kind, record, trusted)
    if record.get("agent") is not None:
        row["agent_name"] = clean_short(record["agent"], field="agent", limit=100)
    return row


def _clean_kind(user: Any, kind: str, record: dict[str, Any], trusted: bool) -> dict[str, Any]:
    if kind == "session":
        return session_import_clean(user=user, fields=record)
    if kind == "turn":
        session_import_clean(user=user, fields={"session_id": record.get("session_id")})
        return turn_import_clean(user=user, fields=record)
    if kind == "tool_call":
        if record.get("session_id") is not None:
            session_import_clean(user=user, fields={"session_id": record["session_id"]})
        return tool_call_import_clean(user=user, fields=record)
    for name in ("id", "superseded_by", "source_turn"):
        if record.get(name) is not None and not _is_id(record[name]):
            raise ValidationError({name: "Must be a record id (a positive integer)."})
    return memory_import_clean(user=user, fields=record, trusted=trusted)


@dataclass
class Checked:
    """What pass 1 found: the format version, records per type, the file's size."""

    version: int = VERSION
    counts: dict[str, int] = field(default_factory=lambda: {COUNTED[k]: 0 for k in KINDS})
    size: int = 0

    @property
    def records(self) -> int:
        return sum(self.counts.values())


class _Checker:
    def __init__(self, user: Any, trusted: bool) -> None:
        self.user, self.trusted = user, trusted
        self.checked = Checked()
        self.header = self.end = False
        self.ids: dict[str, dict[int, int]] = defaultdict(dict)  # kind -> id -> line
        self.successors: dict[int, tuple[int, int]] = {}  # item id -> (its successor, line)
        self.links: list[tuple[int, int]] = []  # (line, successor) of every superseded item
        self.have: set[str] | None = None  # the account's agents (read at the first name)
        self.new_agents: set[str] = set()  # names of agents the owner's import creates

    def line(self, number: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if not self.header:
            self._header(number, record)
            return
        if self.end:
            raise _line_error(number, 'Nothing may follow the last line ({"type": "end"}).')
        if kind == "end":
            self._end(number, record)
            return
        if kind not in KINDS:
            raise _line_error(number, f"Unknown record type {str(kind)[:40]!r}.")
        unknown = sorted(set(record) - FIELDS[kind])
        if unknown:
            raise _line_error(number, f"Unknown field(s): {', '.join(unknown)[:200]}.")
        try:
            row = _clean(self.user, kind, record, self.trusted)
        except ValidationError as error:
            raise _line_error(number, error) from None
        if self.trusted and row.get("agent_name"):
            self._new_agent(number, row["agent_name"])
        if kind != "session" and record.get("id") is not None:
            if not _is_id(record["id"]):
                raise _line_error(number, "id: Must be a record id (a positive integer).")
            seen = self.ids[kind].setdefault(record["id"], number)
            if seen != number:
                raise _line_error(number, f"Id {record['id']} is used by line {seen} already.")
        if kind == "knowledge" and record.get("superseded_by") is not None:
            self.links.append((number, record["superseded_by"]))
            if record.get("id") is not None:
                self.successors[record["id"]] = (record["superseded_by"], number)
        self.checked.counts[COUNTED[kind]] += 1

    def _header(self, number: int, record: dict[str, Any]) -> None:
        if record.get("type") != "header" or record.get("format") != FORMAT:
            raise _line_error(number, f'The first line must be the "{FORMAT}" header.')
        if record.get("version") not in VERSIONS:
            raise _line_error(number, f"Unsupported version (use {VERSION}).")
        unknown = sorted(set(record) - FIELDS["header"])
        if unknown:
            raise _line_error(number, f"Unknown field(s): {', '.join(unknown)[:200]}.")
        self.header = True
        self.checked.version = record["version"]

    def _end(self, number: int, record: dict[str, Any]) -> None:
        unknown = sorted(set(record) - FIELDS["end"])
        if unknown:
            raise _line_error(number, f"Unknown field(s): {', '.join(unknown)[:200]}.")
        if not _is_id(record.get("records")) and record.get("records") != 0:
            raise _line_error(number, "records: Must be the number of records in the file.")
        if record["records"] != self.checked.records:
            raise _line_error(
                number,
                f"The file holds {self.checked.records} records but its last line says "
                f"{record['records']}: it is incomplete or was changed.",
            )
        self.end = True

    def finish(self) -> Checked:
        if not self.header:
            raise ValidationError(f"Empty file: expected a {FORMAT} header line.")
        if self.checked.version >= 2 and not self.end:
            raise ValidationError(
                'The file ends before its last line ({"type": "end"}): it is incomplete.'
            )
        items = self.ids["knowledge"]
        for number, successor in self.links:
            if successor not in items:
                raise _line_error(
                    number, f"superseded_by: no knowledge record of this file has id {successor}."
                )
        self._refuse_cycles()
        return self.checked

    def _new_agent(self, number: int, name: str) -> None:
        """The owner's import creates the agents its rows name, a bounded number of them
        (a token's import creates none: see `_Store._agent`)."""
        if self.have is None:
            self.have = set(agent_list(user=self.user).values_list("name", flat=True))
        if name in self.have:
            return
        self.new_agents.add(name)
        if len(self.new_agents) > NEW_AGENTS_MAX:
            raise _line_error(
                number,
                f"agent: more than {NEW_AGENTS_MAX} agents this account does not have; an "
                f"import creates at most {NEW_AGENTS_MAX} (add the others first, or leave "
                "their names out).",
            )

    def _refuse_cycles(self) -> None:
        done: set[int] = set()
        for start in self.successors:
            path: dict[int, None] = {}
            current: int | None = start
            while current is not None and current not in done:
                if current in path:
                    raise _line_error(self.successors[current][1], "superseded_by: a cycle.")
                path[current] = None
                current = self.successors.get(current, (None, 0))[0]
            done.update(path)


def _checker_state(checker: _Checker, reached: int) -> dict[str, Any]:
    """What a check in slices keeps between two slices (JSON)."""
    return {
        "reached": reached,
        "header": checker.header,
        "end": checker.end,
        "version": checker.checked.version,
        "counts": checker.checked.counts,
        "ids": {kind: list(ids.items()) for kind, ids in checker.ids.items()},
        "successors": [[item, *link] for item, link in checker.successors.items()],
        "links": checker.links,
        "new_agents": sorted(checker.new_agents),
    }


def _checker_from(user: Any, trusted: bool, state: dict[str, Any]) -> _Checker:
    checker = _Checker(user, trusted)
    checker.header, checker.end = state["header"], state["end"]
    checker.checked.version, checker.checked.counts = state["version"], state["counts"]
    for kind, pairs in state["ids"].items():
        checker.ids[kind] = {item: line for item, line in pairs}
    checker.successors = {item: (successor, line) for item, successor, line in state["successors"]}
    checker.links = [(line, successor) for line, successor in state["links"]]
    checker.new_agents = set(state["new_agents"])
    return checker


def check_some(
    *,
    user: Any,
    lines: Iterable[bytes | str],
    trusted: bool,
    state: dict[str, Any] | None,
    stop: Callable[[], bool],
) -> tuple[dict[str, Any], Checked | None]:
    """Pass 1 in slices (a worker's, memory.import_jobs): check `lines` on from where
    `state` (None at first) got to, until the file ends or `stop()` says so. Returns the
    state to go on from and, once the whole file is checked, what `check_lines` returns.
    Raises ValidationError naming the first bad line, as `check_lines`."""
    memory_import_allowed(user=user, trusted=trusted)
    checker = _checker_from(user, trusted, state) if state else _Checker(user, trusted)
    reached = state["reached"] if state else 0
    for done, (number, record) in enumerate(parse(lines, after=reached), start=1):
        checker.line(number, record)
        reached = number
        if done % 50 == 0 and stop():
            return _checker_state(checker, reached), None
    return _checker_state(checker, reached), checker.finish()


def check_lines(
    *,
    user: Any,
    lines: Iterable[bytes | str],
    trusted: bool,
    keep: Callable[[bytes], Any] | None = None,
) -> Checked:
    """Pass 1: check the whole file, store nothing; `keep(line)` receives each raw line
    (to store the file for pass 2). Raises ValidationError naming the first bad line."""
    memory_import_allowed(user=user, trusted=trusted)
    checker = _Checker(user, trusted)

    def kept() -> Iterator[bytes | str]:
        for raw in lines:
            data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
            checker.checked.size += len(data)
            if keep is not None:
                keep(data)
            yield raw

    for number, record in parse(kept()):
        checker.line(number, record)
    return checker.finish()


# --- Import, pass 2: store in chunks


class Journal(Protocol):
    """Where a resumable run keeps its place (memory.import_jobs)."""

    done: dict[int, int]  # line -> row stored for it by an earlier run
    created: dict[str, int]  # the totals so far, per record type
    skipped: dict[str, int]

    def before_chunk(self) -> None:
        """Outside any transaction, before each chunk (may raise to stop the run)."""

    def hold(self) -> None:
        """First thing inside each chunk's transaction (may raise to stop the run)."""

    def note(self, rows: list[tuple[int, int]], created: dict, skipped: dict) -> None:
        """Last thing inside each chunk's transaction: (line, row) pairs and the totals."""


Source = Callable[[], Iterable[bytes | str]]
Batch = list[tuple[int, dict[str, Any]]]


class _Store:
    """One run of pass 2: the maps from the file's ids to the account's rows, and counts."""

    def __init__(self, user: Any, trusted: bool, journal: Journal | None) -> None:
        self.user, self.trusted, self.journal = user, trusted, journal
        self.done = journal.done if journal is not None else {}
        self.sessions: dict[str, Session] = {}
        self.agents: dict[str, int | None] = {}
        self.turns: dict[int, int] = {}
        self.items: dict[int, int] = {}
        self.keep: set[int] = set()  # item ids of this file's records: never folded into
        self.created = {COUNTED[k]: 0 for k in KINDS}
        self.skipped = {COUNTED[k]: 0 for k in KINDS}
        if journal is not None:  # a resumed run goes on counting
            self.created.update(journal.created)
            self.skipped.update(journal.skipped)
        self.sizer = Sizer(CHUNK_FIRST, CHUNK_MAX)
        self.flushed = False

    def run(self, source: Source) -> dict[str, dict[str, int]]:
        self._phase(source, "session", self._sessions)
        self._phase(source, "turn", self._turns)
        self._phase(source, "tool_call", self._tool_calls)
        self._knowledge(source)
        return {"created": self.created, "skipped": self.skipped}

    def _scan(self, source: Source, kind: str) -> Iterator[tuple[int, dict, int | None]]:
        for number, record in parse(source()):
            if record.get("type") == kind:
                yield number, record, self.done.get(number)

    def _flush(self, batch: Batch, store: Callable[[Batch], list[tuple[int, int]]]) -> None:
        if self.flushed:
            pause()
        if self.journal is not None:
            self.journal.before_chunk()
        self.sizer.start()
        with transaction.atomic():
            if self.journal is not None:
                self.journal.hold()
            rows = store(batch)
            if self.journal is not None:
                self.journal.note(rows, self.created, self.skipped)
            self.sizer.done()  # before commit: the embedding after it holds no lock
        self.flushed = True

    def _phase(self, source: Source, kind: str, store: Callable[[Batch], list]) -> None:
        batch: Batch = []
        for number, record, row in self._scan(source, kind):
            if row is not None:
                self._resumed(kind, record, row)
                continue
            batch.append((number, record))
            if len(batch) >= self.sizer.size:
                self._flush(batch, store)
                batch = []
        if batch:
            self._flush(batch, store)

    def _resumed(self, kind: str, record: dict[str, Any], row: int) -> None:
        """A line an earlier run stored as `row`: only the maps need it."""
        if kind == "session":
            session = Session.objects.for_user(self.user).filter(pk=row).first()
            if session is not None:
                self.sessions[session.session_id] = session
        elif kind == "turn" and record.get("id") is not None:
            self.turns[record["id"]] = row
        elif kind == "knowledge":
            self.keep.add(row)
            if record.get("id") is not None:
                self.items[record["id"]] = row

    def _count(self, kind: str, created: bool) -> None:
        (self.created if created else self.skipped)[COUNTED[kind]] += 1

    def _cleaned(self, kind: str, number: int, record: dict[str, Any]) -> dict[str, Any]:
        try:
            row = _clean(self.user, kind, record, self.trusted)
        except ValidationError as error:
            raise _line_error(number, error) from None
        name = row.pop("agent_name", None)
        if kind != "session":  # the writer comes along under its name
            row["agent_id"] = self._agent(name) if name else None
        return row

    def _agent(self, name: str) -> int | None:
        """The user's agent of that name. The owner's import creates it when missing; a
        token's import only names agents the account has (a file can name any), and
        rows naming another carry no agent."""
        if name not in self.agents:
            if self.trusted:
                self.agents[name] = agent_get_or_create(user=self.user, name=name).pk
            else:
                agent = agent_by_name(user=self.user, name=name)
                self.agents[name] = agent.pk if agent is not None else None
        return self.agents[name]

    def _session(self, session_id: Any, when: datetime) -> Session:
        """The session a turn or tool call names, created (at its time) when the file has
        no record of it."""
        row = session_import_clean(user=self.user, fields={"session_id": session_id})
        if row["session_id"] not in self.sessions:
            row.update(created_at=when, last_turn_at=when)
            session, created = session_import(user=self.user, row=row)
            self.sessions[row["session_id"]] = session
            self.created["sessions"] += created
        return self.sessions[row["session_id"]]

    def _sessions(self, batch: Batch) -> list[tuple[int, int]]:
        out = []
        for number, record in batch:
            row = self._cleaned("session", number, record)
            session, created = session_import(user=self.user, row=row)
            self.sessions[session.session_id] = session
            self._count("session", created)
            out.append((number, session.pk))
        return out

    def _turns(self, batch: Batch) -> list[tuple[int, int]]:
        rows = []
        for number, record in batch:
            row = self._cleaned("turn", number, record)
            rows.append((self._session(record.get("session_id"), row["timestamp"]), row))
        out = []
        stored = turns_import(user=self.user, rows=rows)
        for (number, record), (turn, created) in zip(batch, stored, strict=True):
            if record.get("id") is not None:
                self.turns[record["id"]] = turn.pk
            self._count("turn", created)
            out.append((number, turn.pk))
        return out

    def _tool_calls(self, batch: Batch) -> list[tuple[int, int]]:
        rows = []
        for number, record in batch:
            row = self._cleaned("tool_call", number, record)
            session_id = record.get("session_id")
            session = self._session(session_id, row["timestamp"]) if session_id else None
            rows.append((session, row))
        out = []
        stored = tool_calls_import(user=self.user, rows=rows)
        for (number, _), (call, created) in zip(batch, stored, strict=True):
            self._count("tool_call", created)
            out.append((number, call.pk))
        return out

    def _items(self, batch: Batch) -> list[tuple[int, int]]:
        rows = []
        for number, record in batch:
            row = self._cleaned("knowledge", number, record)
            successor = record.get("superseded_by")
            row["superseded_by"] = self.items[successor] if successor is not None else None
            row["source_turn"] = self.turns.get(record.get("source_turn"))
            rows.append(row)
        out = []
        stored = memory_import_many(user=self.user, rows=rows, keep=self.keep)
        for (number, record), (item, outcome) in zip(batch, stored, strict=True):
            if record.get("id") is not None:
                self.items[record["id"]] = item.pk
            self._count("knowledge", outcome == "created")
            out.append((number, item.pk))
        return out

    def _knowledge(self, source: Source) -> None:
        """Items in file order, except that an item waits for the item that superseded it
        (it is stored already linked, never active for a moment)."""
        waiting: dict[int, Batch] = defaultdict(list)
        ready: Batch = []

        def place(number: int, record: dict[str, Any]) -> None:
            successor = record.get("superseded_by")
            if successor is not None and successor not in self.items:
                waiting[successor].append((number, record))
            else:
                ready.append((number, record))

        def release(record: dict[str, Any]) -> None:
            for number, waiter in waiting.pop(record.get("id"), []):
                place(number, waiter)

        def flush(everything: bool) -> None:
            while ready and (everything or len(ready) >= self.sizer.size):
                batch = ready[: self.sizer.size]
                del ready[: len(batch)]
                self._flush(batch, self._items)
                for _, record in batch:
                    release(record)

        for number, record, row in self._scan(source, "knowledge"):
            if row is not None:
                self._resumed("knowledge", record, row)
                release(record)
            else:
                place(number, record)
            flush(everything=False)
        flush(everything=True)
        if waiting:  # check_lines refuses such files: a file changed between the passes
            number = min(n for batch in waiting.values() for n, _ in batch)
            raise _line_error(number, "superseded_by: its item could not be imported.")


def store_lines(
    *, user: Any, source: Source, trusted: bool, journal: Journal | None = None
) -> dict[str, dict[str, int]]:
    """Pass 2: store a checked file (`source()` gives its lines, once per stage) in short
    transactions. Returns what was created and what was skipped, per record type."""
    return _Store(user, trusted, journal).run(source)


def import_lines(
    *, user: Any, lines: Iterable[bytes | str], trusted: bool = False
) -> dict[str, dict[str, int]]:
    """Check then store a whole file in this process (small files; see import_jobs)."""
    kept: list[bytes] = []
    check_lines(user=user, lines=lines, trusted=trusted, keep=kept.append)
    return store_lines(user=user, source=lambda: kept, trusted=trusted)
