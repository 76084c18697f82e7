"""Import, pass 2 (see memory.portability): a checked file stored through the owning
services in short transactions, resumable through a `Journal`; `import_lines` runs both
passes in this process."""

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Model

from accounts.agents import agent_by_name
from accounts.services import agent_get_or_create
from conversations.models import Session
from conversations.services.imports import (
    session_import,
    session_import_clean,
    tool_calls_import,
    turns_import,
)
from core.chunks import Sizer, pause
from graph.services import entity_import, relation_import, relations_import_ends
from memory.imports import memory_import_many
from memory.portability.check import check_lines, record_clean
from memory.portability.format import COUNTED, KINDS, line_error, parse

CHUNK_FIRST, CHUNK_MAX = 50, 500  # records per write transaction
_WRITTEN_BY_AGENTS = {"turn", "tool_call", "knowledge"}


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
        self.entities: dict[int, int] = {}
        self.relations: dict[int, int] = {}
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
        self._phase(source, "entity", self._entities)
        self._phase(source, "relation", self._relations)
        self._ends(source)
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
        elif kind in ("entity", "relation") and record.get("id") is not None:
            (self.entities if kind == "entity" else self.relations)[record["id"]] = row

    def _count(self, kind: str, created: bool) -> None:
        (self.created if created else self.skipped)[COUNTED[kind]] += 1

    def _cleaned(self, kind: str, number: int, record: dict[str, Any]) -> dict[str, Any]:
        try:
            row = record_clean(self.user, kind, record, self.trusted)
        except ValidationError as error:
            raise line_error(number, error) from None
        name = row.pop("agent_name", None)
        if kind in _WRITTEN_BY_AGENTS:  # the writer comes along under its name
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
        return self._stored("turn", batch, turns_import(user=self.user, rows=rows), self.turns)

    def _tool_calls(self, batch: Batch) -> list[tuple[int, int]]:
        rows = []
        for number, record in batch:
            row = self._cleaned("tool_call", number, record)
            session_id = record.get("session_id")
            session = self._session(session_id, row["timestamp"]) if session_id else None
            rows.append((session, row))
        return self._stored("tool_call", batch, tool_calls_import(user=self.user, rows=rows))

    def _items(self, batch: Batch) -> list[tuple[int, int]]:
        rows = []
        for number, record in batch:
            row = self._cleaned("knowledge", number, record)
            successor = record.get("superseded_by")
            row["superseded_by"] = self.items[successor] if successor is not None else None
            row["source_turn"] = self.turns.get(record.get("source_turn"))
            rows.append(row)
        stored = memory_import_many(user=self.user, rows=rows, keep=self.keep)
        created = [(item, outcome == "created") for item, outcome in stored]
        return self._stored("knowledge", batch, created, self.items)

    def _entities(self, batch: Batch) -> list[tuple[int, int]]:
        stored = []
        for number, record in batch:
            row = self._cleaned("entity", number, record)
            items = self._mapped(self.items, record.get("items"))
            stored.append(entity_import(user=self.user, row=row, item_ids=items))
        return self._stored("entity", batch, stored, self.entities)

    def _relations(self, batch: Batch) -> list[tuple[int, int]]:
        stored = []
        for number, record in batch:
            row = self._cleaned("relation", number, record)
            ends = [self.entities.get(record.get(name)) for name in ("subject", "object")]
            if None in ends:  # check_lines refuses such files: a file changed since
                raise line_error(number, "subject, object: their entities were not imported.")
            relation = relation_import(
                user=self.user,
                row=row,
                subject=ends[0],
                object=ends[1],
                item_ids=self._mapped(self.items, record.get("items")),
                turn_ids=self._mapped(self.turns, record.get("turns")),
            )
            stored.append(relation)
        return self._stored("relation", batch, stored, self.relations)

    @staticmethod
    def _mapped(rows: dict[int, int], ids: list[int] | None) -> list[int]:
        """The account's rows for the file's `ids` that were imported."""
        return [rows[i] for i in ids or () if i in rows]

    def _ends(self, source: Source) -> None:
        """Each relation linked to the one that ended it, once both are stored."""
        ends = [
            (self.relations[record["id"]], self.relations[record["ended_by"]])
            for _, record, _ in self._scan(source, "relation")
            if record.get("ended_by") in self.relations and record.get("id") in self.relations
        ]
        if ends:
            with transaction.atomic():
                relations_import_ends(user=self.user, ends=ends)

    def _stored(
        self,
        kind: str,
        batch: Batch,
        stored: Sequence[tuple[Model, bool]],
        ids: dict[int, int] | None = None,
    ) -> list[tuple[int, int]]:
        """(line, row id) of each stored record, counted; `ids` maps the file's ids to rows."""
        out = []
        for (number, record), (row, created) in zip(batch, stored, strict=True):
            if ids is not None and record.get("id") is not None:
                ids[record["id"]] = row.pk
            self._count(kind, created)
            out.append((number, row.pk))
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
            raise line_error(number, "superseded_by: its item could not be imported.")


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
