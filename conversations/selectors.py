"""Read-only views of one user's sessions, turns and tool calls."""

from typing import Any

from django.db.models import Avg, Count, Max, Min, Q, QuerySet

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


def turn_get(*, user: Any, turn_id: int) -> Turn:
    """One of the user's turns by id, with its session (DoesNotExist for another user's
    id, the same as for a missing one)."""
    return Turn.objects.for_user(user).select_related("session", "agent").get(pk=turn_id)


def turn_owner_id(turn_id: int) -> int | None:
    """Whose turn `turn_id` is (None for a missing one): for a task given only its id."""
    return Turn.objects.filter(pk=turn_id).values_list("owner_id", flat=True).first()


def session_owner_id(session_pk: int) -> int | None:
    """Whose session (by primary key) it is, None for a missing one."""
    return Session.objects.filter(pk=session_pk).values_list("owner_id", flat=True).first()


def session_owners(*, session_id: str) -> QuerySet:
    """The ids of the accounts that have a session `session_id` (a subquery)."""
    return Session.objects.filter(session_id=session_id).values("owner_id")


def sessions_first_seen(*, owner_ids: QuerySet) -> list[dict[str, Any]]:
    """The session ids those accounts have, each with when the first of that id began."""
    rows = (
        Session.objects.filter(owner_id__in=owner_ids)
        .values("session_id")
        .annotate(first=Min("created_at"))
        .order_by("session_id")
    )
    return list(rows)


def sessions_of_turns(*, turn_ids: list[int], owner_ids: set[int]) -> dict[int, str]:
    """turn id -> the session id it belongs to, for those of `turn_ids` the owners have."""
    rows = Turn.objects.filter(pk__in=turn_ids, owner_id__in=owner_ids)
    return dict(rows.values_list("pk", "session__session_id"))


def session_turns(*, user: Any, session: Session) -> QuerySet[Turn]:
    """The session's turns in conversation order."""
    return (
        Turn.objects.for_user(user)
        .filter(session=session)
        .select_related("session", "agent")
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
    calls = ToolCall.objects.for_user(user).select_related("session", "agent")
    if tool_name:
        calls = calls.filter(tool_name=tool_name)
    if success is not None:
        calls = calls.filter(success=success)
    if session_id:
        calls = calls.filter(session__session_id=session_id)
    return calls.order_by("-timestamp", "-pk")


def tool_summary(*, user: Any) -> list[dict[str, Any]]:
    """Per tool: calls, success rate, mean duration, last error."""
    rows = (
        ToolCall.objects.for_user(user)
        .values("tool_name")
        .annotate(
            calls=Count("pk"),
            successes=Count("pk", filter=Q(success=True)),
            mean_duration_ms=Avg("duration_ms"),
        )
        .order_by("-calls", "tool_name")
    )
    out = []
    for row in rows:
        last_error = (
            ToolCall.objects.for_user(user)
            .filter(tool_name=row["tool_name"], success=False)
            .order_by("-timestamp")
            .values_list("error", flat=True)
            .first()
        )
        out.append(
            {
                "tool_name": row["tool_name"],
                "calls": row["calls"],
                "success_rate": round(row["successes"] / row["calls"], 4),
                "mean_duration_ms": (
                    round(row["mean_duration_ms"], 1)
                    if row["mean_duration_ms"] is not None
                    else None
                ),
                "last_error": last_error or "",
            }
        )
    return out


def extraction_failures(*, user: Any, limit: int = 5) -> list[dict[str, Any]]:
    """Why extraction failed for the user's turns: each reason with its count, latest first."""
    rows = (
        Turn.objects.for_user(user)
        .filter(extraction_status="failed")
        .values("extraction_error")
        .annotate(count=Count("pk"), latest=Max("timestamp"))
        .order_by("-latest")[:limit]
    )
    return [
        {
            "reason": r["extraction_error"] or "unknown reason",
            "count": r["count"],
            "latest": r["latest"],
        }
        for r in rows
    ]


def turns_awaiting_extraction() -> int:
    """Everyone's turns still waiting for extraction (the installation's backlog, for
    the operator's metrics; no person's rows are read)."""
    return Turn.objects.filter(extraction_status="pending").count()
