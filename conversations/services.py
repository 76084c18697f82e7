"""The one write path for conversation turns and tool calls."""

import re
from datetime import UTC, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.agents import context_default, own_agent
from accounts.services import user_settings_get, user_zone
from conversations import signals
from conversations.models import EXTRACTION_STATES, ROLES, TURN_CONTENT_MAX, Session, ToolCall, Turn
from core.chunks import write_in_chunks
from core.jsonsafe import check_json
from core.secrets import mask_json, mask_secrets
from core.validation import clean_short, clean_text, parse_when
from retrieval import events
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


def _needs_extraction(user: Any, role: str, content: str) -> bool:
    if role != "user" or len(content.split()) < EXTRACTION_MIN_WORDS:
        return False
    settings = user_settings_get(user)
    return settings.memory_enabled and settings.auto_extract


def _turn_context_for(*, session: Any, when: datetime) -> str:
    """Context for a turn being added to `session` at `when`: the turn just before it."""
    previous = (
        Turn.objects.filter(session=session, timestamp__lte=when)
        .order_by("-timestamp", "-id")
        .values_list("content", flat=True)
        .first()
    )
    return turn_context(previous)


def turn_append(
    *,
    user: Any,
    session_id: str,
    role: str,
    content: str,
    context: str | None = None,
    timestamp: Any = None,
    speaker: str = "",
    agent: Any = None,
) -> Turn:
    """Log one turn; the session is created on first use.

    `timestamp` may be given (imports of old conversations keep their real times).
    User turns of at least five words are marked for background extraction. Secrets are
    masked before the turn is stored (`secrets_masked` counts them): what was masked
    is never searched, extracted, summarised or exported. `agent` (the writer's Agent or
    its id) is recorded; with no `context` the turn is in the agent's default context.
    """
    fields = _turn_fields(
        user,
        session_id=session_id,
        role=role,
        content=content,
        context=context,
        timestamp=timestamp,
        speaker=speaker,
        agent=agent,
    )
    with embedded_ahead([_turn_text_ahead(user, fields)]), transaction.atomic():
        return _turn_store(user, fields)


def _turn_text_ahead(user: Any, fields: dict[str, Any]) -> str:
    """The text the turn of `fields` will be indexed with, read before its transaction
    (a turn another write puts before it meanwhile only makes the vector ahead unused)."""
    session = Session.objects.filter(owner=user, session_id=fields["session_id"]).first()
    context_text = _turn_context_for(session=session, when=fields["when"]) if session else ""
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
        context_text=_turn_context_for(session=session, when=when),
        context=fields["context"],
        timestamp=when,
        extraction_status="pending" if _needs_extraction(user, role, content) else "",
        secrets_masked=fields["masked"],
        agent=fields["agent"],
    )
    first = not Turn.objects.filter(session=session).exclude(pk=turn.pk).exists()
    if when > session.last_turn_at or first:
        Session.objects.filter(pk=session.pk).update(last_turn_at=when)
    events.turns_changed(user.pk, upserted=[turn.pk])  # embedded and indexed on commit
    if turn.extraction_status == "pending":
        signals.turn_pending.send(sender=Turn, turn=turn)  # learning queues extraction
    return turn


def turns_append_many(*, user: Any, turns: list[dict[str, Any]], agent: Any = None) -> list[Turn]:
    """Log several turns in order: every entry is validated before anything is stored.

    A bad entry raises ValidationError naming its index, and nothing is stored. The
    turns are written in chunks, each its own short transaction (`core.chunks`), so a
    large batch never holds the write lock for long.
    """
    fields: list[dict[str, Any]] = []
    for index, entry in enumerate(turns):
        if not isinstance(entry, dict):
            raise ValidationError({str(index): "Each entry must be an object."})
        try:
            fields.append(_turn_fields(user, agent=agent, **entry))
        except ValidationError as error:
            raise ValidationError({str(index): error.messages}) from error
        except TypeError as error:
            raise ValidationError({str(index): f"Unknown field: {error}"}) from error
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


# Imports (memory.portability): exported rows come back with their own times. Each
# `*_import_clean` validates one record and writes nothing (the whole file is checked
# before anything is stored); the writes run inside the importer's short transactions
# and skip what is already there, so importing a file twice adds nothing.


def _stored_when(value: Any, *, field: str, tz: Any) -> datetime | None:
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
        "created_at": _stored_when(fields.get("created_at"), field="created_at", tz=tz),
        "last_turn_at": _stored_when(fields.get("last_turn_at"), field="last_turn_at", tz=tz),
        "consolidated_at": _stored_when(
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
    timestamp = _stored_when(fields.get("timestamp"), field="timestamp", tz=tz)
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
        "created_at": _stored_when(fields.get("created_at"), field="created_at", tz=tz),
        "consolidated_at": _stored_when(
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
            context_text=_turn_context_for(session=session, when=when),
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
        events.turns_changed(user.pk, upserted=new)
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
    timestamp = _stored_when(fields.get("timestamp"), field="timestamp", tz=user_zone(user))
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


def turns_prune(*, user: Any, before: Any, dry_run: bool = False) -> int:
    """Delete the user's turns older than `before` (retention); returns how many."""
    old = Turn.objects.for_user(user).filter(timestamp__lt=before)
    if dry_run:
        return old.count()
    with transaction.atomic():
        rows = list(old.values_list("pk", "session_id", "content"))
        ids = [pk for pk, _, _ in rows]
        deleted = Turn.objects.filter(pk__in=ids).delete()[1].get(Turn._meta.label, 0)
        # A kept turn answering a deleted one loses its copy of it (as after a redaction).
        replies = _replies_recontext(user, [(session, text) for _, session, text in rows], "")
        events.turns_changed(user.pk, upserted=replies, removed=ids)
    return deleted


def tool_calls_prune(*, user: Any, before: Any, dry_run: bool = False) -> int:
    """Delete the user's tool calls older than `before` (retention); returns how many."""
    old = ToolCall.objects.for_user(user).filter(timestamp__lt=before)
    return old.count() if dry_run else old.delete()[1].get(old.model._meta.label, 0)


# Learning's bookkeeping on turns and sessions. The conditions (`extraction_status` still
# "pending", `consolidated_at` still null) make its tasks idempotent: keep them exact.


def turn_extraction_skip(*, turn_id: int) -> int:
    """Mark a still-pending turn as skipped (extraction is off); returns rows changed."""
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(
        extraction_status="skipped"
    )


def turn_extraction_attempt_failed(*, turn_id: int, message: str) -> int:
    """Count one failed extraction attempt on a still-pending turn and record its error."""
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(
        extraction_attempts=F("extraction_attempts") + 1, extraction_error=message
    )


def turn_extraction_retry_later(
    *, turn_id: int, message: str, retry_at: datetime, attempted: bool
) -> int:
    """Keep a still-pending turn for a later try (the model is unreachable): record the
    error, when the trouble began (kept from the first failure) and when to try next."""
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(
        extraction_attempts=F("extraction_attempts") + int(attempted),
        extraction_error=message,
        extraction_failing_since=Coalesce("extraction_failing_since", timezone.now()),
        extraction_retry_at=retry_at,
    )


def turn_extraction_failed(*, turn_id: int, message: str | None = None) -> int:
    """Give up on a still-pending turn: its extraction ends as failed."""
    fields: dict[str, Any] = {"extraction_status": "failed", "extraction_retry_at": None}
    if message is not None:
        fields["extraction_error"] = message
    return Turn.objects.filter(pk=turn_id, extraction_status="pending").update(**fields)


def turn_extraction_claim(*, turn_id: int, owner_id: int) -> bool:
    """Move the owner's pending turn to done; True when this run claimed it."""
    claimed = Turn.objects.filter(
        pk=turn_id, owner_id=owner_id, extraction_status="pending"
    ).update(
        extraction_status="done",
        extraction_error="",
        extraction_refused=0,
        extraction_failing_since=None,
        extraction_retry_at=None,
    )
    return bool(claimed)


def turn_extraction_refused(*, turn_id: int, refused: int, applied: bool, message: str) -> int:
    """Record operations of the model's answer that were refused on a claimed turn: it is
    "partial" when something else was applied or skipped, "failed" when nothing was;
    never "done", so no proposed fact is lost without a trace."""
    return Turn.objects.filter(pk=turn_id, extraction_status="done").update(
        extraction_status="partial" if applied else "failed",
        extraction_refused=refused,
        extraction_error=message[:500],
    )


def turn_extraction_retry(*, user: Any, turn_id: int) -> Turn:
    """Put the user's failed or partial turn back in the extraction queue (a person asked).

    Another user's turn is Turn.DoesNotExist; a turn in any other state is left as it is.
    """
    turn = Turn.objects.for_user(user).get(pk=turn_id)
    if turn.extraction_status not in ("failed", "partial"):
        return turn
    with transaction.atomic():
        Turn.objects.filter(pk=turn.pk, extraction_status=turn.extraction_status).update(
            extraction_status="pending",
            extraction_attempts=0,
            extraction_error="",
            extraction_refused=0,
            extraction_failing_since=None,
            extraction_retry_at=None,
        )
        turn.refresh_from_db()
        if turn.extraction_status == "pending":
            signals.turn_pending.send(sender=Turn, turn=turn)  # learning queues it on commit
    return turn


def turns_extraction_retry_failed(*, user: Any) -> int:
    """Put all of the user's failed turns back to pending (the command's --retry-failed)."""
    return (
        Turn.objects.for_user(user)
        .filter(extraction_status="failed")
        .update(
            extraction_status="pending",
            extraction_attempts=0,
            extraction_error="",
            extraction_refused=0,
            extraction_failing_since=None,
            extraction_retry_at=None,
        )
    )


def turns_consolidation_skip(*, turn_ids: list[int], when: datetime) -> int:
    """Stamp these turns consolidated at `when` unconditionally (nothing learned from them)."""
    return Turn.objects.filter(pk__in=turn_ids).update(consolidated_at=when)


def turns_consolidation_drop(*, turn_ids: list[int], when: datetime) -> int:
    """Stamp those of these turns not yet consolidated (a batch given up on)."""
    return Turn.objects.filter(pk__in=turn_ids, consolidated_at__isnull=True).update(
        consolidated_at=when
    )


def turns_consolidation_claim(*, turn_ids: list[int], owner_id: int, when: datetime) -> int:
    """Stamp the owner's turns not yet consolidated; returns how many this run claimed."""
    return Turn.objects.filter(
        pk__in=turn_ids, owner_id=owner_id, consolidated_at__isnull=True
    ).update(consolidated_at=when)


def session_consolidation_failed(*, session_pk: int) -> int:
    """Count one failed consolidation attempt on the session."""
    return Session.objects.filter(pk=session_pk).update(
        consolidation_attempts=F("consolidation_attempts") + 1
    )


def session_consolidation_reset(*, session_pk: int) -> int:
    """Clear the session's count of failed consolidation attempts."""
    return Session.objects.filter(pk=session_pk).update(consolidation_attempts=0)


def session_consolidated(*, session: Session, when: datetime, summary: str) -> int:
    """Stamp the session consolidated, reset its attempts, append `summary` (last 8000
    chars); apps above hear that the session is finished (skills learn from it)."""
    signals.session_finished.send(sender=Session, session=session)
    return Session.objects.filter(pk=session.pk).update(
        consolidated_at=when,
        consolidation_attempts=0,
        summary=f"{session.summary}\n\n{summary}".strip()[-8000:],
    )


# Redaction for privacy's erasure (privacy deletes across apps; changing rows is ours).


def turns_redact(*, user: Any, turn_ids: list[int], text: str) -> int:
    """Replace the text of some of the user's turns by `text`; they are never extracted or
    consolidated again. The turns that answer them lose their copy of the old text too
    (`_replies_recontext`). Returns how many turns changed."""
    old = list(
        Turn.objects.for_user(user).filter(pk__in=turn_ids).values_list("session_id", "content")
    )
    changed = (
        Turn.objects.for_user(user)
        .filter(pk__in=turn_ids)
        .update(
            content=text,
            embedding=None,
            embedding_model="",
            extraction_status="skipped",
            extraction_error="",
            consolidated_at=Coalesce("consolidated_at", timezone.now()),
        )
    )
    replies = _replies_recontext(user, old, text)
    if changed:  # the redacted text must leave every process's turn index too
        # A reply's vector was computed with the old text as its context: dropped now,
        # embedded again from its new context once this commits.
        events.turns_changed(user.pk, upserted=replies, removed=turn_ids)
    return changed


def _replies_recontext(user: Any, redacted: list[tuple[int, str]], text: str) -> list[int]:
    """Each turn stores the end of the turn before it (`context_text`, indexed and embedded
    with it): where that copy came from a turn now redacted (or deleted), it becomes the
    end of `text` and the reply's vector is dropped. Returns the replies changed.

    Matched by the copy itself, within the session, so every reply made while the old
    text was the turn before it (an import can have put another turn between them since)
    loses it."""
    copies: dict[int, set[str]] = {}
    for session_pk, content in redacted:
        copy = turn_context(content)
        if copy and copy != turn_context(text):
            copies.setdefault(session_pk, set()).add(copy)
    replies: list[int] = []
    for session_pk, texts in copies.items():
        ordered = sorted(texts)
        for start in range(0, len(ordered), 200):  # bounded IN lists (a retention prune)
            mine = Turn.objects.for_user(user).filter(
                session_id=session_pk, context_text__in=ordered[start : start + 200]
            )
            replies += list(mine.values_list("pk", flat=True))
    if replies:
        Turn.objects.filter(pk__in=replies).update(
            context_text=turn_context(text), embedding=None, embedding_model=""
        )
    return replies


def turns_batch_extraction_skip(*, user: Any, turn_id: int) -> int:
    """Never extract the consolidation batch of this turn again (pending/failed -> skipped).

    A consolidated fact comes from a whole batch of turns (its source turn is only the
    last one): none of the batch is extracted again; their text stays as history.
    """
    anchor = Turn.objects.for_user(user).filter(pk=turn_id).first()
    if anchor is None or anchor.consolidated_at is None:
        return 0
    return (
        Turn.objects.for_user(user)
        .filter(session_id=anchor.session_id, consolidated_at=anchor.consolidated_at)
        .filter(extraction_status__in=("pending", "failed"))
        .update(extraction_status="skipped")
    )


def tool_call_redact(*, user: Any, tool_call_id: int, text: str) -> int:
    """Replace the user's tool call's error by `text` and drop its result summary."""
    return (
        ToolCall.objects.for_user(user)
        .filter(pk=tool_call_id)
        .update(error=text, result_summary="")
    )
