"""search_past_conversations: keywords and/or a time range over the user's turns."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError

from conversations.models import Turn
from retrieval import keyword, pipeline
from retrieval.corpus import TURNS

MAX_TOP_K = 100


@dataclass
class TurnHit:
    turn: Turn
    score: float
    matched_by: str  # "vector" | "keyword" | "both" | "time" | "date" (date stage alone)


def search_turns(
    *,
    user: Any,
    query: str | None = None,
    top_k: int = 10,
    session_id: str | None = None,
    role: str | None = None,
    time_from: datetime | None = None,
    time_to: datetime | None = None,
) -> list[TurnHit]:
    """Turns matching `query` (best first) or, with only a time range, newest first."""
    if not (query and query.strip()) and not time_from and not time_to:
        raise ValidationError("Give a query or a time range.", code="empty")
    top_k = max(1, min(int(top_k), MAX_TOP_K))
    turns = Turn.objects.for_user(user).select_related("session")
    if session_id:
        turns = turns.filter(session__session_id=session_id)
    if role:
        turns = turns.filter(role=role)
    if time_from:
        turns = turns.filter(timestamp__gte=time_from)
    if time_to:
        turns = turns.filter(timestamp__lte=time_to)
    if not (query and query.strip()):
        return [TurnHit(t, 0.0, "time") for t in turns.order_by("-timestamp")[:top_k]]
    where = keyword.Where().add("t.owner_id = %s", user.pk)
    if session_id:
        where.add(
            "t.session_id IN (SELECT id FROM conversations_session "
            "WHERE owner_id = %s AND session_id = %s)",
            user.pk,
            session_id,
        )
    if role:
        where.add("t.role = %s", role)
    if time_from:
        where.add("t.timestamp >= %s", time_from)
    if time_to:
        where.add("t.timestamp <= %s", time_to)
    ranked = pipeline.hybrid(
        TURNS,
        owner_id=user.pk,
        query=query,
        where=where,
        top_k=top_k,
        documents=lambda ids: dict(turns.filter(pk__in=ids).values_list("pk", "content")),
    )
    found = turns.in_bulk([r.id for r in ranked])
    return [TurnHit(found[r.id], r.score, r.matched_by) for r in ranked if r.id in found]
