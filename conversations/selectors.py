"""Read-only views of one user's sessions, turns and tool calls."""

from typing import Any

from django.db.models import Count, QuerySet

from conversations.models import Session, ToolCall, Turn


def sessions_list(*, user: Any) -> QuerySet[Session]:
    """The user's sessions with their turn counts, most recently active first."""
    return (
        Session.objects.for_user(user)
        .annotate(turn_count=Count("turns"))
        .order_by("-last_turn_at", "-pk")
    )


def session_get(*, user: Any, session_id: str) -> Session:
    """One of the user's sessions by its client-chosen id (DoesNotExist otherwise)."""
    if "\x00" in session_id or len(session_id) > 128:
        raise Session.DoesNotExist
    return sessions_list(user=user).get(session_id=session_id)


def session_turns(*, user: Any, session: Session) -> QuerySet[Turn]:
    """The session's turns in conversation order."""
    return (
        Turn.objects.for_user(user)
        .filter(session=session)
        .select_related("session")
        .order_by("timestamp", "pk")
    )


def tool_calls_list(
    *,
    user: Any,
    tool_name: str | None = None,
    success: bool | None = None,
    session_id: str | None = None,
) -> QuerySet[ToolCall]:
    """The user's tool calls, newest first, under the given filters."""
    calls = ToolCall.objects.for_user(user).select_related("session")
    if tool_name:
        calls = calls.filter(tool_name=tool_name)
    if success is not None:
        calls = calls.filter(success=success)
    if session_id:
        calls = calls.filter(session__session_id=session_id)
    return calls.order_by("-timestamp", "-pk")
