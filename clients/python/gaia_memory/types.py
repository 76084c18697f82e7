"""Typed results of the client: plain dataclasses built from the API's JSON.

Each keeps the JSON it was built from in `raw`, so a field a newer server adds is never
lost to an older client.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, TypeVar

T = TypeVar("T", bound="_Result")


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 time from the API (`Z` included, which Python 3.10 does not read)."""
    if not isinstance(value, str) or not value:
        return None
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


@dataclass
class _Result:
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls: type[T], data: dict[str, Any]) -> T:
        values: dict[str, Any] = {}
        for spec in fields(cls):
            if spec.name == "raw" or spec.name not in data:
                continue
            value = data[spec.name]
            if "datetime" in str(spec.type):
                value = parse_time(value)
            values[spec.name] = value
        return cls(raw=data, **values)


@dataclass
class Memory(_Result):
    """One stored memory (knowledge item)."""

    id: int = 0
    content: str = ""
    category: str = "fact"
    context: str = "global"
    entity: str = ""
    domain: str = ""
    sensitive: bool = False
    pinned: bool = False
    """Never fades with disuse."""
    source: str = ""
    confidence: float = 0.0
    importance: float = 0.0
    created_at: datetime | None = None
    updated_at: datetime | None = None
    due_at: datetime | None = None
    reminded_at: datetime | None = None
    forgotten_at: datetime | None = None
    deduplicated: bool = False
    """Set by `remember`: a memory saying the same thing was updated instead."""
    outcome: str = ""
    """Set by `remember`: new, deduplicated, or conflict (stored, and linked to
    `conflicts_with`, an older memory it may contradict)."""
    conflicts_with: int | None = None


@dataclass
class RecallHit(Memory):
    """A memory found by `recall`, best first."""

    score: float = 0.0
    relevance: float = 0.0
    """0..1, comparable across queries."""
    matched_by: str = ""
    via: str = ""
    """How it relates to an entity the query names ("my partner is Rui"), else empty."""


@dataclass
class _TurnFields(_Result):
    """What a logged turn and a turn found by search both say, in the same order."""

    id: int = 0
    session_id: str = ""
    role: str = ""
    content: str = ""
    speaker: str = ""


@dataclass
class Turn(_TurnFields):
    """One logged conversation turn."""

    context: str = "global"
    timestamp: datetime | None = None
    extraction_status: str = ""


@dataclass
class TurnHit(_TurnFields):
    """A turn found by `search_conversations`."""

    timestamp: datetime | None = None
    score: float = 0.0
    matched_by: str = ""


@dataclass
class ToolCallRecord(_Result):
    """One logged tool call."""

    id: int = 0
    session_id: str | None = None
    tool_name: str = ""
    args: Any = None
    result_summary: str = ""
    success: bool = True
    error: str = ""
    duration_ms: int | None = None
    timestamp: datetime | None = None


@dataclass
class ToolResult(_Result):
    """The answer of `call_tool`: `ok` with a `result`, or an `error` for the model."""

    name: str = ""
    ok: bool = False
    result: Any = None
    error: dict[str, Any] | None = None

    def for_model(self) -> str:
        """The text to send back to the model as the tool message's content."""
        return json.dumps(self.raw, ensure_ascii=False)
