"""Import, pass 1 (see memory.portability): every line checked by the owning services'
validation, and the links between records, before anything is stored; resumable in
slices (`check_some`)."""

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError

from accounts.agents import agent_list
from conversations.services.imports import (
    session_import_clean,
    tool_call_import_clean,
    turn_import_clean,
)
from core.validation import clean_short
from graph.imports import entity_import_clean, relation_import_clean
from memory.imports import memory_import_allowed, memory_import_clean
from memory.portability.format import (
    COUNTED,
    FIELDS,
    FORMAT,
    KINDS,
    REFERENCES,
    REFERENCES_MAX,
    VERSION,
    VERSIONS,
    is_id,
    line_error,
    parse,
)

NEW_AGENTS_MAX = 20  # agents one import may create (the owner's import only)


def record_clean(user: Any, kind: str, record: dict[str, Any], trusted: bool) -> dict[str, Any]:
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
    if kind in REFERENCES:  # their links to other records: `references_of`, pass 1
        clean = entity_import_clean if kind == "entity" else relation_import_clean
        return clean(user=user, fields=record)
    for name in ("id", "superseded_by", "source_turn"):
        if record.get(name) is not None and not is_id(record[name]):
            raise ValidationError({name: "Must be a record id (a positive integer)."})
    return memory_import_clean(user=user, fields=record, trusted=trusted)


def references_of(kind: str, record: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(field, kind named, id) of each link of a graph record to another record of the
    file; ValidationError when a field is not an id (or a list of them)."""
    found = []
    for name, target, many in REFERENCES[kind]:
        value = record.get(name)
        if many:
            value = [] if value is None else value
            if not isinstance(value, list) or len(value) > REFERENCES_MAX:
                raise ValidationError({name: f"A list of at most {REFERENCES_MAX} record ids."})
        elif value is None:
            if name != "ended_by":
                raise ValidationError({name: "Required: the id of a record of this file."})
            value = []
        else:
            value = [value]
        if not all(is_id(i) for i in value):
            raise ValidationError({name: "Must be record ids (positive integers)."})
        found.extend((name, target, i) for i in value)
    return found


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
        self.references: list[tuple[int, str, str, int]] = []  # graph: (line, field, kind, id)
        self.have: set[str] | None = None  # the account's agents (read at the first name)
        self.new_agents: set[str] = set()  # names of agents the owner's import creates

    def line(self, number: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        if not self.header:
            self._header(number, record)
            return
        if self.end:
            raise line_error(number, 'Nothing may follow the last line ({"type": "end"}).')
        if kind == "end":
            self._end(number, record)
            return
        if kind not in KINDS:
            raise line_error(number, f"Unknown record type {str(kind)[:40]!r}.")
        unknown = sorted(set(record) - FIELDS[kind])
        if unknown:
            raise line_error(number, f"Unknown field(s): {', '.join(unknown)[:200]}.")
        try:
            references = references_of(kind, record) if kind in REFERENCES else []
            row = record_clean(self.user, kind, record, self.trusted)
        except ValidationError as error:
            raise line_error(number, error) from None
        if self.trusted and row.get("agent_name"):
            self._new_agent(number, row["agent_name"])
        if kind != "session" and record.get("id") is not None:
            if not is_id(record["id"]):
                raise line_error(number, "id: Must be a record id (a positive integer).")
            seen = self.ids[kind].setdefault(record["id"], number)
            if seen != number:
                raise line_error(number, f"Id {record['id']} is used by line {seen} already.")
        self.references.extend((number, *ref) for ref in references)
        if kind == "knowledge" and record.get("superseded_by") is not None:
            self.links.append((number, record["superseded_by"]))
            if record.get("id") is not None:
                self.successors[record["id"]] = (record["superseded_by"], number)
        self.checked.counts[COUNTED[kind]] += 1

    def _header(self, number: int, record: dict[str, Any]) -> None:
        if record.get("type") != "header" or record.get("format") != FORMAT:
            raise line_error(number, f'The first line must be the "{FORMAT}" header.')
        if record.get("version") not in VERSIONS:
            raise line_error(number, f"Unsupported version (use {VERSION}).")
        unknown = sorted(set(record) - FIELDS["header"])
        if unknown:
            raise line_error(number, f"Unknown field(s): {', '.join(unknown)[:200]}.")
        self.header = True
        self.checked.version = record["version"]

    def _end(self, number: int, record: dict[str, Any]) -> None:
        unknown = sorted(set(record) - FIELDS["end"])
        if unknown:
            raise line_error(number, f"Unknown field(s): {', '.join(unknown)[:200]}.")
        if not is_id(record.get("records")) and record.get("records") != 0:
            raise line_error(number, "records: Must be the number of records in the file.")
        if record["records"] != self.checked.records:
            raise line_error(
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
                raise line_error(
                    number, f"superseded_by: no knowledge record of this file has id {successor}."
                )
        for number, name, target, record_id in self.references:
            if record_id not in self.ids[target]:
                raise line_error(
                    number, f"{name}: no {target} record of this file has id {record_id}."
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
            raise line_error(
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
                    raise line_error(self.successors[current][1], "superseded_by: a cycle.")
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
        "references": checker.references,
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
    checker.references = [tuple(ref) for ref in state.get("references", [])]
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
