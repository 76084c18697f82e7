"""Recall: the one entry point every caller (API, web, tools, tasks) uses to search memory.

`recall()` returns the user's own active items, best first, each with a score and the
stages that found it. Everything below it (vector, keyword, fusion, rerank) is swappable.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Q

from accounts.agents import agent_by_name
from accounts.selectors import memory_on
from graph import selectors as graph
from graph.selectors import Related
from memory import relations
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from retrieval import perspective, pipeline
from retrieval.filters import AnyOf, Filter, Filters, Rows, among, eq, since, until, within
from retrieval.judge import Hits

MAX_TOP_K = 100


@dataclass
class Hit:
    item: KnowledgeItem
    score: float
    matched_by: str  # "vector" | "keyword" | "both" | "conversation" (via its source turn)
    relevance: float = 0.0  # in [0, 1], comparable across queries
    via: str = ""  # how it relates to an entity the question names ("my partner is Rui")


def item_scope(
    *,
    category: str | None = None,
    context: str | None = None,
    entity: str | Sequence[str] | None = None,
    include_sensitive: bool = False,
    time_from: datetime | None = None,
    time_to: datetime | None = None,
    agent_id: int | None = None,
) -> list[Filter | AnyOf]:
    """The recall filters, as typed filters on the items corpus (`memory.corpus`)."""
    scope: list[Filter | AnyOf] = []
    if category:
        scope.append(eq("category", category))
    if context:
        scope.append(among("context", [context, "global"]))
    if isinstance(entity, str) and entity:
        scope.append(eq("entity", entity.lower()))
    elif entity:  # an entity and its aliases (`graph.selectors.filter_keys`)
        scope.append(among("entity", entity))
    if not include_sensitive:
        scope.append(eq("sensitive", False))
    if time_from:
        scope.append(since("created_at", time_from))
    if time_to:
        scope.append(until("created_at", time_to))
    if agent_id is not None:
        scope.append(eq("agent", agent_id))
    return scope


NOTE_WEIGHT = 0.8  # a diary note's score against a current fact's, when ordering hits
BROAD_RELEVANCE = 0.5  # what matters most of a person answers "what do you know about me"


def _about_holder(owned: Any, owner_id: int, scope: Filters, top_k: int) -> Hits:
    """A question about the person as a whole: their items that matter most (pinned, then
    by importance, use and recency), under the same filters as any recall."""
    ids = pipeline.in_scope(ITEMS, owner_id, scope)
    items = (
        owned.filter(pk__in=ids)
        .exclude(category="note")  # a diary note is what was said once, not who they are
        .select_related("agent")
        .defer("embedding")
        .order_by("-pinned", "-importance", "-use_count", "-updated_at", "-pk")[:top_k]
    )
    hits = [Hit(item, BROAD_RELEVANCE, "profile", BROAD_RELEVANCE) for item in items]
    return Hits(hits, reason="broad question")


def recall(
    *,
    user: Any,
    query: str,
    top_k: int = 5,
    category: str | None = None,
    context: str | None = None,
    entity: str | None = None,
    include_sensitive: bool = False,
    time_from: datetime | None = None,
    time_to: datetime | None = None,
    min_relevance: float | None = None,
    agent: str | None = None,
    judge: bool = True,
    matching: Q | None = None,
) -> Hits:
    """The user's items that best answer `query`, best first (at most `top_k`), each at
    least `min_relevance` relevant (default GAIA_MIN_RELEVANCE; 0 returns every candidate).
    `agent` keeps only what the user's agent of that name stored (none if no such agent).
    `judge=False` takes the fast path: the fused order, without the relevance judge. The
    answer says whether it was judged (`Hits.judged`). `matching` (a condition on the
    user's items, e.g. `memory.item_conditions`) keeps only the items it selects, before
    anything is ranked, so `top_k` is filled from them.

    A pure read: the caller that hands hits to an agent marks them used (`memory_touch`).
    With memory off for `user` (session-only) nothing is recalled.
    """
    if not memory_on(user):
        return Hits(reason="memory off")
    top_k = max(1, min(int(top_k), MAX_TOP_K))
    writer = None
    if agent:
        found = agent_by_name(user=user, name=agent)
        if found is None:
            return Hits(judged=True)
        writer = found.pk
    scope = item_scope(
        category=category,
        context=context,
        entity=graph.filter_keys(user=user, entity=entity) if entity else None,
        include_sensitive=include_sensitive,
        time_from=time_from,
        time_to=time_to,
        agent_id=writer,
    )
    owned = KnowledgeItem.objects.for_user(user)
    if matching is not None:
        sql, params = owned.filter(matching).values("pk").query.sql_with_params()
        scope.append(within("id", Rows(sql, tuple(params))))
    if perspective.asks_about_holder(query or ""):
        return _about_holder(owned, user.pk, scope, top_k)
    related = graph.related(user=user, query=query or "")

    verdict = pipeline.hybrid(
        ITEMS,
        owner_id=user.pk,
        query=perspective.as_stored(query or ""),
        filters=scope,
        top_k=top_k,
        documents=lambda ids: _as_read(owned, ids, related),
        min_relevance=settings.GAIA_MIN_RELEVANCE if min_relevance is None else min_relevance,
        also=relations.searches(related),
        asked=query,
        judged=judge,
    )
    return Hits(_hits(owned, verdict.hits, related), judged=verdict.judged, reason=verdict.reason)


def _as_read(owned: Any, ids: list[int], related: Related | None) -> dict[int, str]:
    """What the judge reads of each item: an item a relation brought, after the relation."""
    rows = owned.filter(pk__in=ids).values_list("pk", "content", "entity")
    if related is None:
        return {pk: content for pk, content, _ in rows}
    return {pk: relations.shown(content, related.via(pk, ent)) for pk, content, ent in rows}


def _hits(owned: Any, ranked: list[Any], related: Related | None) -> list[Hit]:
    """The ranked rows as hits, read in one query; a diary note is evidence of what was
    said in its session, not what holds now: it yields to a current fact that answers as
    well ("where do I live": Lisbon before a note from when the person lived in Porto)."""
    items = owned.select_related("agent").defer("embedding").in_bulk([r.id for r in ranked])
    hits = [
        Hit(
            items[r.id],
            r.score,
            r.matched_by,
            round(r.relevance, 4),
            related.via(r.id, items[r.id].entity) if related else "",
        )
        for r in ranked
        if r.id in items
    ]
    hits.sort(key=lambda h: -h.score * (NOTE_WEIGHT if h.item.is_diary_note else 1.0))
    return hits
