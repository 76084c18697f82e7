"""Imports (memory.portability): exported rows come back with their own times. Each
`*_import_clean` validates one record and writes nothing (the whole file is checked
before anything is stored); the writes run inside the importer's short transactions and
skip what is already there, so importing a file twice adds nothing."""

from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.services import user_zone
from conversations.changes import turns_changed
from conversations.models import EXTRACTION_STATES, ROLES, Session, ToolCall, Turn
from conversations.services.recording import turn_content_clean, turn_context_for
from core.jsonsafe import check_json
from core.secrets import mask_json, mask_secrets
from core.validation import clean_short, clean_text, parse_when


def stored_when(value: Any, *, field: str, tz: Any) -> datetime | None:
    """A time read from an exported record (naive ones in `tz`), refused when it does not
    fit once stored as UTC."""
    when = parse_when(value, field=field, tz=tz)
    try:  # stored as UTC: 9999-12-31T23:00-12:00 does not fit
        when and when.astimezone(UTC)
    except OverflowError:
        raise ValidationError({field: "Date out of range."}, code="invalid") from None
    return when


def session_import_clean(*, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The validated fields of an exported session (session_id, context, times, summary)."""
    session_id = clean_short(fields.get("session_id"), field="session_id", limit=128)
    if not session_id:
        raise ValidationError({"session_id": "Required."}, code="required")
    tz = user_zone(user)
    return {
        "session_id": session_id,
        "context": clean_short(fields.get("context"), field="context", limit=100, default="global"),
        "created_at": stored_when(fields.get("created_at"), field="created_at", tz=tz),
        "last_turn_at": stored_when(fields.get("last_turn_at"), field="last_turn_at", tz=tz),
        "consolidated_at": stored_when(
            fields.get("consolidated_at"), field="consolidated_at", tz=tz
        ),
        "summary": clean_text(fields.get("summary"), field="summary", limit=20_000, required=False),
    }


def session_import(*, user: Any, row: dict[str, Any]) -> tuple[Session, bool]:
    """The user's session `row["session_id"]`, created from a cleaned exported session when
    missing (an existing one is left as it is). Returns (session, created)."""
    mine = Session.objects.for_user(user)
    existing = mine.filter(session_id=row["session_id"]).first()
    if existing is not None:
        return existing, False
    created_at = row["created_at"] or timezone.now()
    try:
        with transaction.atomic():
            session = Session.objects.create(
                owner=user,
                session_id=row["session_id"],
                context=row["context"],
                created_at=created_at,
                last_turn_at=row["last_turn_at"] or created_at,
                consolidated_at=row["consolidated_at"],
                summary=row["summary"],
            )
    except IntegrityError:  # created meanwhile by a turn of the user's agent
        return mine.get(session_id=row["session_id"]), False
    return session, True


def turn_import_clean(*, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The validated fields of an exported turn (its session is resolved by the caller)."""
    role = fields.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise ValidationError({"role": f"Use one of: {', '.join(ROLES)}."}, code="invalid")
    status = fields.get("extraction_status") or ""
    if not isinstance(status, str) or status not in EXTRACTION_STATES:
        raise ValidationError(
            {"extraction_status": f"Use one of: {', '.join(EXTRACTION_STATES[1:])}."},
            code="invalid",
        )
    tz = user_zone(user)
    timestamp = stored_when(fields.get("timestamp"), field="timestamp", tz=tz)
    if timestamp is None:
        raise ValidationError({"timestamp": "Required."}, code="required")
    content, masked = turn_content_clean(fields.get("content"))
    return {
        "role": role,
        "content": content,
        "masked": masked,
        "speaker": clean_short(fields.get("speaker"), field="speaker", limit=100),
        "context": clean_short(fields.get("context"), field="context", limit=100, default="global"),
        "timestamp": timestamp,
        "created_at": stored_when(fields.get("created_at"), field="created_at", tz=tz),
        "consolidated_at": stored_when(
            fields.get("consolidated_at"), field="consolidated_at", tz=tz
        ),
        "extraction_status": status,
    }


def turns_import(
    *, user: Any, rows: list[tuple[Session, dict[str, Any]]]
) -> list[tuple[Turn, bool]]:
    """Store cleaned exported turns, each with its session of the user's, in order, inside
    the caller's transaction. A turn already there (same session, role, time and text) is
    skipped. Returns (turn, created) per row; new turns are announced, so they are
    embedded (or queued for embedding) on commit."""
    out: list[tuple[Turn, bool]] = []
    new: list[int] = []
    for session, row in rows:
        if session.owner_id != user.pk:
            raise ValueError("a turn is imported into one of the user's own sessions")
        when = row["timestamp"]
        existing = (
            Turn.objects.for_user(user)
            .filter(session=session, role=row["role"], timestamp=when, content=row["content"])
            .first()
        )
        if existing is not None:
            out.append((existing, False))
            continue
        turn = Turn.objects.create(
            owner=user,
            session=session,
            role=row["role"],
            speaker=row["speaker"],
            content=row["content"],
            context_text=turn_context_for(session=session, when=when),
            context=row["context"],
            timestamp=when,
            created_at=row["created_at"] or timezone.now(),
            consolidated_at=row["consolidated_at"],
            extraction_status=row["extraction_status"],
            secrets_masked=row["masked"],
            agent_id=row.get("agent_id"),
        )
        Session.objects.filter(pk=session.pk, last_turn_at__lt=when).update(last_turn_at=when)
        new.append(turn.pk)
        out.append((turn, True))
    if new:
        turns_changed(user.pk, upserted=new)
    return out


def tool_call_import_clean(*, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The validated fields of an exported tool call (its session is resolved by the caller)."""
    args = fields.get("args")
    if args is None:
        args = {}
    if not isinstance(args, (dict, list)):
        raise ValidationError({"args": "Must be a JSON object or list."}, code="invalid")
    try:
        check_json(args)
    except ValueError as error:
        raise ValidationError({"args": str(error)}, code="invalid") from None
    success = fields.get("success", True)
    if not isinstance(success, bool):
        raise ValidationError({"success": "Must be true or false."}, code="invalid")
    duration = fields.get("duration_ms")
    if duration is not None and (
        isinstance(duration, bool) or not isinstance(duration, int) or not 0 <= duration < 2**31
    ):
        raise ValidationError({"duration_ms": "Must be a non-negative integer."}, code="invalid")
    timestamp = stored_when(fields.get("timestamp"), field="timestamp", tz=user_zone(user))
    if timestamp is None:
        raise ValidationError({"timestamp": "Required."}, code="required")
    return {
        "tool_name": clean_text(fields.get("tool_name"), field="tool_name", limit=200),
        "args": mask_json(args),
        "result_summary": mask_secrets(
            clean_text(
                fields.get("result_summary"), field="result_summary", limit=4000, required=False
            )
        )[0],
        "success": success,
        "error": mask_secrets(
            clean_text(fields.get("error"), field="error", limit=4000, required=False)
        )[0],
        "duration_ms": duration,
        "timestamp": timestamp,
    }


def tool_calls_import(
    *, user: Any, rows: list[tuple[Session | None, dict[str, Any]]]
) -> list[tuple[ToolCall, bool]]:
    """Store cleaned exported tool calls (each with its session of the user's, or None) in
    order, inside the caller's transaction; one already there (same session, tool and
    time) is skipped. Returns (call, created) per row. Nothing is learned from them again:
    the lessons learned from failures are items of the same export."""
    out: list[tuple[ToolCall, bool]] = []
    for session, row in rows:
        if session is not None and session.owner_id != user.pk:
            raise ValueError("a tool call is imported into one of the user's own sessions")
        existing = (
            ToolCall.objects.for_user(user)
            .filter(session=session, tool_name=row["tool_name"], timestamp=row["timestamp"])
            .first()
        )
        if existing is not None:
            out.append((existing, False))
            continue
        out.append((ToolCall.objects.create(owner=user, session=session, **row), True))
    return out
