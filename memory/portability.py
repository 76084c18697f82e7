"""Export and import of one user's whole memory as JSON Lines (no embeddings).

Format: one JSON object per line. The first is a header
`{"type": "header", "format": "gaia-memory-export", "version": 1, ...}`; then `session`,
`turn`, `tool_call` and `knowledge` records. Ids in a file are the exporter's ids and only
link records of the same file (a turn's session, an item's `superseded_by` and
`source_turn`); they never name rows of the importing account.

Import is idempotent: a record whose natural key already exists in the account is skipped
(sessions by session_id; turns by session, role, time and content; tool calls by session,
tool, time; knowledge by content, category, context, entity and created_at; an active item
also folds into an active near-duplicate), so importing a file twice adds nothing.
It is all or nothing: a bad line stops the import and nothing is stored.
"""

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import user_zone
from conversations.models import EXTRACTION_STATES, ROLES, Session, ToolCall, Turn
from conversations.services import turn_content_clean
from core.jsonsafe import check_json
from core.secrets import mask_json, mask_secrets
from core.validation import (
    clean_confidence,
    clean_short,
    clean_text,
    parse_when,
    refuse_credentials,
)
from memory.dedup import find_duplicate
from memory.models import (
    CATEGORIES,
    CONTENT_MAX,
    PRIVILEGED_CATEGORIES,
    SOURCE_CONFIDENCE,
    KnowledgeItem,
)
from retrieval import events

FORMAT = "gaia-memory-export"
VERSION = 1
_ITEM_FIELDS = [
    "id", "category", "content", "domain", "context", "entity", "sensitive", "source",
    "confidence", "importance", "metadata", "use_count", "created_at", "updated_at",
    "last_used", "due_at", "reminded_at", "forgotten_at",
]  # fmt: skip


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


def export_lines(*, user: Any) -> Iterator[str]:
    """The user's memory as JSON Lines, streamed: header, sessions, turns, tool calls,
    knowledge (forgotten and superseded items included, with lineage)."""
    yield _line(
        {
            "type": "header",
            "format": FORMAT,
            "version": VERSION,
            "exported_at": timezone.now().isoformat(),
            "username": user.get_username(),
        }
    )
    for session in Session.objects.for_user(user).order_by("pk").iterator(chunk_size=500):
        yield _line(
            {
                "type": "session",
                "session_id": session.session_id,
                "context": session.context,
                "created_at": _iso(session.created_at),
                "last_turn_at": _iso(session.last_turn_at),
                "consolidated_at": _iso(session.consolidated_at),
                "summary": session.summary,
            }
        )
    turns = Turn.objects.for_user(user).select_related("session").order_by("pk")
    for turn in turns.iterator(chunk_size=500):
        yield _line(
            {
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
            }
        )
    calls = ToolCall.objects.for_user(user).select_related("session").order_by("pk")
    for call in calls.iterator(chunk_size=500):
        yield _line(
            {
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
            }
        )
    items = KnowledgeItem.objects.for_user(user).order_by("pk").defer("embedding")
    for item in items.iterator(chunk_size=500):
        record = {"type": "knowledge"}
        for name in _ITEM_FIELDS:
            value = getattr(item, name)
            record[name] = _iso(value) if isinstance(value, datetime) else value
        record["superseded_by"] = item.superseded_by_id
        record["source_turn"] = item.source_turn_id
        yield _line(record)


class _Importer:
    """One import run: id maps from the file's ids to the account's rows, and counts."""

    def __init__(self, user: Any) -> None:
        self.user = user
        self.sessions: dict[str, Session] = {}
        self.turns: dict[int, int] = {}
        self.items: dict[int, int] = {}
        self.links: list[tuple[int, int]] = []  # (file id of old item, file id of newer)
        self.upserted: list[int] = []
        self.created = {"sessions": 0, "turns": 0, "tool_calls": 0, "knowledge": 0}
        self.skipped = {"sessions": 0, "turns": 0, "tool_calls": 0, "knowledge": 0}

    def when(self, record: dict, name: str, *, required: bool = False) -> datetime | None:
        value = parse_when(record.get(name), field=name, tz=user_zone(self.user))
        if value is None and required:
            raise ValidationError({name: "Required."})
        try:  # stored as UTC: 9999-12-31T23:00-12:00 does not fit
            value and value.astimezone(UTC)
        except OverflowError:
            raise ValidationError({name: "Date out of range."}) from None
        return value

    @staticmethod
    def json_value(record: dict, name: str, default: Any, kinds: tuple[type, ...]) -> Any:
        value = record.get(name)
        if value is None:
            return default
        if not isinstance(value, kinds):
            raise ValidationError({name: "Wrong JSON type."})
        try:
            check_json(value)
        except ValueError as error:
            raise ValidationError({name: str(error)}) from None
        return value

    def session(self, session_id: Any, context: str = "global") -> Session:
        session_id = clean_short(session_id, field="session_id", limit=128)
        if not session_id:
            raise ValidationError({"session_id": "Required."})
        if session_id not in self.sessions:
            session, created = Session.objects.for_user(self.user).get_or_create(
                owner=self.user, session_id=session_id, defaults={"context": context}
            )
            self.sessions[session_id] = session
            self.created["sessions"] += int(created)
        return self.sessions[session_id]

    def add_session(self, record: dict) -> None:
        session_id = clean_short(record.get("session_id"), field="session_id", limit=128)
        if not session_id:
            raise ValidationError({"session_id": "Required."})
        existing = Session.objects.for_user(self.user).filter(session_id=session_id).first()
        if existing is not None:
            self.sessions[session_id] = existing
            self.skipped["sessions"] += 1
            return
        created_at = self.when(record, "created_at") or timezone.now()
        self.sessions[session_id] = Session.objects.create(
            owner=self.user,
            session_id=session_id,
            context=clean_short(
                record.get("context"), field="context", limit=100, default="global"
            ),
            created_at=created_at,
            last_turn_at=self.when(record, "last_turn_at") or created_at,
            consolidated_at=self.when(record, "consolidated_at"),
            summary=clean_text(
                record.get("summary"), field="summary", limit=20_000, required=False
            ),
        )
        self.created["sessions"] += 1

    def add_turn(self, record: dict) -> None:
        session = self.session(record.get("session_id"))
        role = record.get("role")
        if role not in ROLES:
            raise ValidationError({"role": f"Use one of: {', '.join(ROLES)}."})
        content, masked = turn_content_clean(record.get("content"))
        timestamp = self.when(record, "timestamp", required=True)
        turn = (
            Turn.objects.for_user(self.user)
            .filter(session=session, role=role, timestamp=timestamp, content=content)
            .first()
        )
        if turn is not None:
            self.skipped["turns"] += 1
        else:
            status = record.get("extraction_status") or ""
            turn = Turn.objects.create(
                owner=self.user,
                session=session,
                role=role,
                speaker=clean_short(record.get("speaker"), field="speaker", limit=100),
                content=content,
                context=clean_short(
                    record.get("context"), field="context", limit=100, default="global"
                ),
                timestamp=timestamp,
                created_at=self.when(record, "created_at") or timezone.now(),
                consolidated_at=self.when(record, "consolidated_at"),
                extraction_status=status if status in EXTRACTION_STATES else "",
                secrets_masked=masked,
            )
            self.created["turns"] += 1
        if isinstance(record.get("id"), int):
            self.turns[record["id"]] = turn.pk

    def add_tool_call(self, record: dict) -> None:
        session = self.session(record["session_id"]) if record.get("session_id") else None
        tool_name = clean_text(record.get("tool_name"), field="tool_name", limit=200)
        timestamp = self.when(record, "timestamp", required=True)
        if (
            ToolCall.objects.for_user(self.user)
            .filter(session=session, tool_name=tool_name, timestamp=timestamp)
            .exists()
        ):
            self.skipped["tool_calls"] += 1
            return
        args = self.json_value(record, "args", {}, (dict, list))
        duration = record.get("duration_ms")
        if duration is not None and (not isinstance(duration, int) or not 0 <= duration < 2**31):
            raise ValidationError({"duration_ms": "Must be a non-negative integer."})
        ToolCall.objects.create(
            owner=self.user,
            session=session,
            tool_name=tool_name,
            args=mask_json(args),
            result_summary=mask_secrets(
                clean_text(
                    record.get("result_summary"), field="result_summary", limit=4000, required=False
                )
            )[0],
            success=bool(record.get("success", True)),
            error=mask_secrets(
                clean_text(record.get("error"), field="error", limit=4000, required=False)
            )[0],
            duration_ms=duration,
            timestamp=timestamp,
        )
        self.created["tool_calls"] += 1

    def add_item(self, record: dict) -> None:
        content = clean_text(record.get("content"), field="content", limit=CONTENT_MAX)
        refuse_credentials(content)
        category = record.get("category") or "fact"
        if category not in CATEGORIES + PRIVILEGED_CATEGORIES:
            raise ValidationError({"category": "Unknown category."})
        source = record.get("source") or "tool"
        if source not in SOURCE_CONFIDENCE:
            raise ValidationError({"source": "Unknown source."})
        metadata = self.json_value(record, "metadata", {}, (dict,))
        use_count = record.get("use_count") or 0
        if not isinstance(use_count, int) or not 0 <= use_count < 2**31:
            raise ValidationError({"use_count": "Must be a non-negative integer."})
        fields = {
            "content": content,
            "category": category,
            "domain": clean_short(record.get("domain"), field="domain", limit=100),
            "context": clean_short(
                record.get("context"), field="context", limit=100, default="global"
            ),
            "entity": clean_short(record.get("entity"), field="entity", limit=200).lower(),
            "created_at": self.when(record, "created_at") or timezone.now(),
        }
        file_id = record.get("id") if isinstance(record.get("id"), int) else None
        forgotten_at = self.when(record, "forgotten_at")
        superseded = record.get("superseded_by") is not None
        existing = KnowledgeItem.objects.for_user(self.user).filter(**fields).first()
        if existing is None and forgotten_at is None and not superseded:
            existing = find_duplicate(
                owner_id=self.user.pk,
                content=content,
                category=category,
                context=fields["context"],
                entity=fields["entity"],
            )
        if existing is not None:
            self.skipped["knowledge"] += 1
        else:
            turn_id = self.turns.get(record.get("source_turn"))
            existing = KnowledgeItem.objects.create(
                owner=self.user,
                **fields,
                sensitive=bool(record.get("sensitive", False)),
                source=source,
                confidence=clean_confidence(
                    record.get("confidence"), default=SOURCE_CONFIDENCE[source]
                ),
                importance=clean_confidence(record.get("importance"), default=1.0),
                metadata=metadata,
                use_count=use_count,
                updated_at=self.when(record, "updated_at") or fields["created_at"],
                last_used=self.when(record, "last_used"),
                due_at=self.when(record, "due_at"),
                reminded_at=self.when(record, "reminded_at"),
                forgotten_at=forgotten_at,
                source_turn_id=turn_id,
            )
            self.upserted.append(existing.pk)
            self.created["knowledge"] += 1
            if superseded and file_id is not None:
                self.links.append((file_id, record["superseded_by"]))
        if file_id is not None:
            self.items[file_id] = existing.pk

    def finish(self) -> None:
        """Link lineage once every item of the file exists (newer items come later)."""
        for old, newer in self.links:
            if old in self.items and newer in self.items:
                KnowledgeItem.objects.for_user(self.user).filter(pk=self.items[old]).update(
                    superseded_by_id=self.items[newer]
                )
        if self.upserted:
            events.items_changed(self.user.pk, upserted=self.upserted)


def _records(lines: Iterable[bytes | str]) -> Iterator[tuple[int, dict]]:
    for number, raw in enumerate(lines, start=1):
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except (ValueError, RecursionError):
            raise ValidationError({f"line {number}": "Not valid JSON."}) from None
        if not isinstance(record, dict):
            raise ValidationError({f"line {number}": "Each line must be a JSON object."})
        yield number, record


def import_lines(*, user: Any, lines: Iterable[bytes | str]) -> dict[str, dict[str, int]]:
    """Import an export of any account into `user`'s memory; all or nothing, idempotent.

    Returns what was created and what was skipped as already present, per record type.
    """
    importer = _Importer(user)
    handlers = {
        "session": importer.add_session,
        "turn": importer.add_turn,
        "tool_call": importer.add_tool_call,
        "knowledge": importer.add_item,
    }
    seen_header = False
    with transaction.atomic():
        for number, record in _records(lines):
            kind = record.get("type")
            if not seen_header:
                if kind != "header" or record.get("format") != FORMAT:
                    raise ValidationError(
                        {f"line {number}": f'The first line must be the "{FORMAT}" header.'}
                    )
                if record.get("version") != VERSION:
                    raise ValidationError(
                        {f"line {number}": f"Unsupported version (use {VERSION})."}
                    )
                seen_header = True
                continue
            if kind not in handlers:
                raise ValidationError({f"line {number}": f"Unknown record type {kind!r}."})
            try:
                handlers[kind](record)
            except ValidationError as error:
                raise ValidationError({f"line {number}": error.messages}) from None
        if not seen_header:
            raise ValidationError("Empty file: expected a gaia-memory-export header line.")
        importer.finish()
    return {"created": importer.created, "skipped": importer.skipped}
