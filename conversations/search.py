"""search_past_conversations: keywords and/or a time range over the user's turns."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.services import user_tz
from conversations.corpus import TURNS
from conversations.models import Session, Turn
from core.text import as_typed
from retrieval import aliases, asked, perspective, pipeline, when
from retrieval.documents import texts_for
from retrieval.filters import Filter, among, eq, since, until
from retrieval.judge import Hits

MAX_TOP_K = 100


@dataclass
class TurnHit:
    turn: Turn
    score: float
    matched_by: str  # "vector" | "keyword" | "both" | "time" (a time range, no query)
    relevance: float = 0.0  # in [0, 1], comparable across queries (1 for a time range)


def search_turns(
    *,
    user: Any,
    query: str | None = None,
    top_k: int = 10,
    session_id: str | None = None,
    role: str | None = None,
    time_from: datetime | None = None,
    time_to: datetime | None = None,
    min_relevance: float | None = None,
    judge: bool = True,
    queries: Sequence[str] | None = None,
    now: datetime | None = None,
) -> Hits:
    """Turns matching `query` (best first) or, with only a time range, newest first.

    Turns less relevant than `min_relevance` (default GAIA_MIN_RELEVANCE) are left out;
    `judge=False` skips the relevance judge (the fast path; `Hits.judged` tells).
    `queries`: up to four other phrasings, fused with `query` into one ranking. A time
    the query names as people say it ("yesterday", in the user's time zone, from `now`)
    narrows the search and is no topic (`Hits.time_read` says what was read); a query that
    names a time and nothing else lists that time's turns, newest first. Words that ask
    for the newest ("lately", "last time") are no topic: the newest session comes first.
    A question that names someone by role ("the physio") is also asked with the name the
    person's turns give that role ("Anouk": `retrieval.aliases`).
    """
    query = as_typed(query) if query else query  # "I’m" typed on a phone is "I'm"
    queries = [as_typed(q) if isinstance(q, str) else q for q in queries or []]
    if not (query and query.strip()) and not time_from and not time_to:
        raise ValidationError("Give a query or a time range.", code="empty")
    top_k = max(1, min(int(top_k), MAX_TOP_K))
    turns = Turn.objects.for_user(user).select_related("session", "agent")
    read = None
    if query and query.strip() and when.read(query, now or timezone.now()) is not None:
        read = when.read(query, now or timezone.now(), user_tz(user))
    said = None
    if read is not None:
        start = max(read.start, time_from) if time_from else read.start
        end = min(read.end, time_to) if time_to else read.end
        held = turns.filter(timestamp__gte=start, timestamp__lt=end).exists()
        said = read.answer(used=held)
        if held:
            query, time_from, time_to = read.rest, start, end
        else:  # nothing of theirs then: the window narrows nothing, the words stay
            read = None
    newest = when.recent(query) if read is None and query else None
    query = newest[0] if newest else query
    phrasings = []
    for text in list(queries or [])[: pipeline.MAX_PHRASINGS]:
        if isinstance(text, str) and text.strip():
            other = when.read(text, now or timezone.now())
            text = other.rest if other else text
            phrasings.append((text, text))
    if not (query and query.strip()) or (
        read is not None and not phrasings and perspective.names_no_topic(query)
    ):
        newest = turns.filter(**_as_lookups(session_id, role, time_from, time_to))
        newest = newest.order_by("-timestamp")[:top_k]
        hits = [TurnHit(t, 0.0, "time", 1.0) for t in newest]
        return Hits(hits, reason="time range", time_read=said)
    named = aliases.named_phrasings(TURNS, user.pk, query)  # "the physio" is Anouk
    clause = asked.asked_clause(query)  # "I have a toothache, what did the dentist say?"
    for text in [*named, *([clause] if clause else [])]:
        if len(phrasings) < pipeline.MAX_PHRASINGS and (text, text) not in phrasings:
            phrasings.append((text, text))
    scope: list[Filter] = []
    if session_id:
        sessions = Session.objects.for_user(user).filter(session_id=session_id)
        scope.append(among("session", sessions.values_list("pk", flat=True)))
    if role:
        scope.append(eq("role", role))
    if time_from:
        scope.append(since("timestamp", time_from))
    if time_to:
        scope.append(until("timestamp", time_to))
    verdict = pipeline.hybrid(
        TURNS,
        owner_id=user.pk,
        query=query,
        filters=scope,
        top_k=top_k,
        documents=lambda ids: _as_read(user.pk, ids),
        min_relevance=settings.GAIA_MIN_RELEVANCE if min_relevance is None else min_relevance,
        judged=judge,
        phrasings=phrasings,
        timed=read is not None,
    )
    found = turns.in_bulk([r.id for r in verdict.hits])
    hits = [
        TurnHit(found[r.id], r.score, r.matched_by, round(r.relevance, 4))
        for r in verdict.hits
        if r.id in found
    ]
    if newest:  # "lately": of what answers about as well as the best, the newest first
        hits = pipeline.newest_first(hits, lambda h: h.relevance, lambda h: h.turn.timestamp)
    return Hits(
        hits,
        judged=verdict.judged,
        reason=verdict.reason,
        time_read=said,
    )


def _as_lookups(
    session_id: str | None, role: str | None, time_from: datetime | None, time_to: datetime | None
) -> dict[str, Any]:
    """The same filters as ORM lookups (a time range with no query is read newest first)."""
    lookups = {
        "session__session_id": session_id,
        "role": role,
        "timestamp__gte": time_from,
        "timestamp__lte": time_to,
    }
    return {name: value for name, value in lookups.items() if value}


def _as_read(owner_id: int, ids: list[int]) -> dict[int, str]:
    """What the judge reads of each turn: as it is indexed, who said it, what was said,
    and the end of the turn it answers ("Yes, last Sunday" means nothing alone)."""
    return {pk: text for pk, (text, _) in texts_for(TURNS, owner_id, ids).items()}
