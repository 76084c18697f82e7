"""Export (see memory.portability): every record of one user's memory, made valid before
its line is sent, between a header and a last line that counts them."""

import json
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db.models import Prefetch
from django.utils import timezone

from conversations.models import Session, ToolCall, Turn
from graph.imports import graph_records
from memory.models import KnowledgeItem, MemoryVersion
from memory.portability.format import (
    COUNTED,
    FORMAT,
    ITEM_FIELDS,
    KINDS,
    VERSION,
    VERSION_FIELDS,
    repaired,
)


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
    record, _ = repaired(record)
    return _line(record), True


def _records(user: Any) -> Iterator[dict[str, Any]]:
    """The user's rows as export records: sessions, turns, tool calls, knowledge, and
    the graph (its links to items and turns only to records of the file)."""
    exported: dict[str, set[int]] = {"turn": set(), "knowledge": set()}
    for record in _memory_records(user):
        if record["type"] in exported:
            exported[record["type"]].add(record["id"])
        yield record
    for record in graph_records(user):
        record["items"] = [i for i in record["items"] if i in exported["knowledge"]]
        if record["type"] == "relation":
            record["turns"] = [i for i in record["turns"] if i in exported["turn"]]
        yield record


def _memory_records(user: Any) -> Iterator[dict[str, Any]]:
    """Sessions, turns, tool calls and knowledge as export records."""
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
        for name in ITEM_FIELDS:
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
    values = {name: getattr(version, name) for name in VERSION_FIELDS}
    return {k: _iso(v) if isinstance(v, datetime) else v for k, v in values.items()}


def export_lines(*, user: Any) -> Iterator[bytes]:
    """The user's memory as JSON Lines (UTF-8), streamed: the header, sessions, turns,
    tool calls, knowledge (forgotten and superseded items included, with lineage), the
    graph's entities and relations, and a last line counting the records."""
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
