"""Privacy's changes to conversations: pruning old turns and tool calls, and redacting
their text (a reply that answered a redacted turn gets its context redone)."""

from typing import Any

from django.db import transaction
from django.db.models.functions import Coalesce
from django.utils import timezone

from conversations.changes import turns_changed
from conversations.models import ToolCall, Turn
from retrieval.documents import turn_context


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
        turns_changed(user.pk, upserted=replies, removed=ids)
    return deleted


def tool_calls_prune(*, user: Any, before: Any, dry_run: bool = False) -> int:
    """Delete the user's tool calls older than `before` (retention); returns how many."""
    old = ToolCall.objects.for_user(user).filter(timestamp__lt=before)
    return old.count() if dry_run else old.delete()[1].get(old.model._meta.label, 0)


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
            tokens=None,
            tokens_model="",
            extraction_status="skipped",
            extraction_error="",
            consolidated_at=Coalesce("consolidated_at", timezone.now()),
        )
    )
    replies = _replies_recontext(user, old, text)
    if changed:  # the redacted text must leave every process's turn index too
        # A reply's vector was computed with the old text as its context: dropped now,
        # embedded again from its new context once this commits.
        turns_changed(user.pk, upserted=replies, removed=turn_ids)
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
            context_text=turn_context(text),
            embedding=None,
            embedding_model="",
            tokens=None,
            tokens_model="",
        )
    return replies


def tool_call_redact(*, user: Any, tool_call_id: int, text: str) -> int:
    """Replace the user's tool call's error by `text` and drop its result summary."""
    return (
        ToolCall.objects.for_user(user)
        .filter(pk=tool_call_id)
        .update(error=text, result_summary="")
    )
