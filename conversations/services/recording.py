"""Recording a conversation as it happens: sessions, turns (one or a batch) and tool
calls, each through one write path (validation, secret masking, index events)."""

import re
from datetime import datetime
from typing import Any, Required, TypedDict, Unpack

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.agents import context_default, own_agent
from accounts.services import user_settings_get, user_zone
from conversations import signals
from conversations.changes import turns_changed
from conversations.models import ROLES, TURN_CONTENT_MAX, Session, ToolCall, Turn
from core.chunks import write_in_chunks
from core.entries import clean_entries
from core.jsonsafe import check_json
from core.secrets import mask_json, mask_secrets
from core.validation import clean_short, clean_text, parse_when
from retrieval.documents import turn_context, turn_text
from retrieval.embedding.ahead import embedded_ahead

EXTRACTION_MIN_WORDS = 5
TURN_CHUNK, TURN_CHUNK_MAX = 50, 250  # turns per write transaction of a batch


# What a session's URL (/api/v1/conversations/sessions/<session_id>/) cannot carry: a
# slash ends the path segment (escaped or not), browsers read a backslash as one, "." and
# ".." are removed by every client, and control characters are never part of a name.
_NOT_IN_URL = re.compile(r"[/\\\x00-\x1f\x7f-\x9f]")


def session_get_or_create(*, user: Any, session_id: str, context: str = "global") -> Session:
    """The user's session with this id, created on first use. A new id must be one its
    URL can carry: no /, \\ or control characters, and not "." or ".."."""
    session_id = clean_short(session_id, field="session_id", limit=128)
    if not session_id:
        raise ValidationError({"session_id": "May not be empty."}, code="required")
    session = Session.objects.for_user(user).filter(session_id=session_id).first()
    if session is not None:
        return session
    if _NOT_IN_URL.search(session_id) or session_id in (".", ".."):
        raise ValidationError(
            {"session_id": 'No /, \\ or control characters, and not "." or "..": the id '
             "is part of the session's URL."},
            code="invalid",
        )  # fmt: skip
    try:
        with transaction.atomic():
            return Session.objects.create(owner=user, session_id=session_id, context=context)
    except IntegrityError:  # created concurrently by another request
        return Session.objects.for_user(user).get(session_id=session_id)


def turn_content_clean(content: Any) -> tuple[str, int]:
    """A turn's text as stored: cleaned, cut to its limit, secrets masked; and how many."""
    content = clean_text(content, field="content", limit=TURN_CONTENT_MAX)
    masked, count = mask_secrets(content)
    return masked[:TURN_CONTENT_MAX], count


def needs_extraction(user: Any, role: str, content: str) -> bool:
    if role != "user" or len(content.split()) < EXTRACTION_MIN_WORDS:
        return False
    settings = user_settings_get(user)
    return settings.memory_enabled and settings.auto_extract


def turn_context_for(*, session: Any, when: datetime) -> str:
    """Context for a turn being added to `session` at `when`: the turn just before it."""
    previous = (
        Turn.objects.filter(session=session, timestamp__lte=when)
        .order_by("-timestamp", "-id")
        .values_list("content", flat=True)
        .first()
    )
    return turn_context(previous)


class TurnEntry(TypedDict, total=False):
    """One turn as `turn_append` takes it (the defaults are `_turn_fields`'s)."""

    session_id: Required[str]
    role: Required[str]
    content: Required[str]
    context: str | None
    timestamp: Any
    speaker: str
    agent: Any


def turn_append(*, user: Any, **entry: Unpack[TurnEntry]) -> Turn:
    """Log one turn; the session is created on first use.

    `timestamp` may be given (imports of old conversations keep their real times).
    User turns of at least five words are marked for background extraction. Secrets are
    masked before the turn is stored (`secrets_masked` counts them): what was masked
    is never searched, extracted, summarised or exported. `agent` (the writer's Agent or
    its id) is recorded; with no `context` the turn is in the agent's default context.
    """
    unknown = sorted(set(entry) - set(TurnEntry.__annotations__))
    if unknown:  # named as the caller wrote it, not as the helper below would
        raise TypeError(f"turn_append() got unexpected keyword arguments: {', '.join(unknown)}")
    fields = _turn_fields(user, **entry)
    with embedded_ahead([_turn_text_ahead(user, fields)]), transaction.atomic():
        return _turn_store(user, fields)


def _turn_text_ahead(user: Any, fields: dict[str, Any]) -> str:
    """The text the turn of `fields` will be indexed with, read before its transaction
    (a turn another write puts before it meanwhile only makes the vector ahead unused)."""
    session = Session.objects.filter(owner=user, session_id=fields["session_id"]).first()
    context_text = turn_context_for(session=session, when=fields["when"]) if session else ""
    return turn_text(
        speaker=fields["speaker"],
        role=fields["role"],
        content=fields["content"],
        context_text=context_text,
    )


def _turn_fields(
    user: Any,
    *,
    session_id: str,
    role: str,
    content: str,
    context: str | None = None,
    timestamp: Any = None,
    speaker: str = "",
    agent: Any = None,
) -> dict[str, Any]:
    """The validated arguments of `turn_append` (nothing is written)."""
    if role not in ROLES:
        raise ValidationError({"role": f"Use one of: {', '.join(ROLES)}."}, code="invalid")
    content, masked = turn_content_clean(content)
    agent = own_agent(user, agent)
    if not context:
        context = context_default(agent)
    return {
        "agent": agent,
        "session_id": session_id,
        "role": role,
        "content": content,
        "masked": masked,
        "context": clean_short(context, field="context", limit=100, default="global"),
        "speaker": clean_short(speaker, field="speaker", limit=100),
        "when": parse_when(timestamp, field="timestamp", tz=user_zone(user)) or timezone.now(),
    }


def _turn_store(user: Any, fields: dict[str, Any]) -> Turn:
    """Store one validated turn, inside the caller's transaction."""
    when, role, content = fields["when"], fields["role"], fields["content"]
    session = session_get_or_create(
        user=user, session_id=fields["session_id"], context=fields["context"]
    )
    turn = Turn.objects.create(
        owner=user,
        session=session,
        role=role,
        speaker=fields["speaker"],
        content=content,
        context_text=turn_context_for(session=session, when=when),
        context=fields["context"],
        timestamp=when,
        extraction_status="pending" if needs_extraction(user, role, content) else "",
        secrets_masked=fields["masked"],
        agent=fields["agent"],
    )
    first = not Turn.objects.filter(session=session).exclude(pk=turn.pk).exists()
    if when > session.last_turn_at or first:
        Session.objects.filter(pk=session.pk).update(last_turn_at=when)
    turns_changed(user.pk, upserted=[turn.pk])  # embedded and indexed on commit
    if turn.extraction_status == "pending":
        signals.turn_pending.send(sender=Turn, turn=turn)  # learning queues extraction
    return turn


def turns_append_many(*, user: Any, turns: list[dict[str, Any]], agent: Any = None) -> list[Turn]:
    """Log several turns in order: every entry is validated before anything is stored.

    A bad entry raises ValidationError naming its index, and nothing is stored. The
    turns are written in chunks, each its own short transaction (`core.chunks`), so a
    large batch never holds the write lock for long.
    """
    fields = clean_entries(turns, lambda _index, entry: _turn_fields(user, agent=agent, **entry))
    return write_in_chunks(
        fields,
        lambda chunk: [_turn_store(user, entry) for entry in chunk],
        first=TURN_CHUNK,
        most=TURN_CHUNK_MAX,
    )


def tool_call_record(
    *,
    user: Any,
    tool_name: str,
    session_id: str | None = None,
    args: Any = None,
    result_summary: str = "",
    success: bool = True,
    error: str = "",
    duration_ms: int | None = None,
    timestamp: Any = None,
    agent: Any = None,
) -> ToolCall:
    """Log one tool call `agent` made (secrets in its texts and arguments masked)."""
    tool_name = clean_text(tool_name, field="tool_name", limit=200)
    if args is not None and not isinstance(args, (dict, list)):
        raise ValidationError({"args": "Must be a JSON object or list."}, code="invalid")
    try:
        check_json(args)
    except ValueError as error:
        raise ValidationError({"args": str(error)}, code="invalid") from None
    if duration_ms is not None and (not isinstance(duration_ms, int) or duration_ms < 0):
        raise ValidationError({"duration_ms": "Must be a non-negative integer."}, code="invalid")
    session = session_get_or_create(user=user, session_id=session_id) if session_id else None
    call = ToolCall.objects.create(
        owner=user,
        session=session,
        tool_name=tool_name,
        args=mask_json(args) if args is not None else {},
        result_summary=mask_secrets(
            clean_text(result_summary, field="result_summary", limit=4000, required=False)
        )[0],
        success=bool(success),
        error=mask_secrets(clean_text(error, field="error", limit=4000, required=False))[0],
        duration_ms=duration_ms,
        timestamp=parse_when(timestamp, field="timestamp", tz=user_zone(user)) or timezone.now(),
        agent=own_agent(user, agent),
    )
    signals.tool_call_logged.send(sender=ToolCall, call=call)  # failures become lessons
    return call
