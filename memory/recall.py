"""Recall: the one entry point every caller (API, web, tools, tasks) uses to search memory.

`recall()` returns the user's own active items, best first, each with a score and the
stages that found it. Everything below it (vector, keyword, fusion, rerank) is swappable.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts.agents import agent_by_name
from accounts.selectors import memory_on
from accounts.services import user_tz
from core.text import as_typed
from graph import selectors as graph
from graph.selectors import Related
from memory import relations
from memory.corpus import ITEMS
from memory.holder import holder as holder_of
from memory.models import SESSION_ENTITY, KnowledgeItem, MemoryVersion
from retrieval import asked, perspective, pipeline, when
from retrieval.filters import AnyOf, Filter, Filters, Rows, among, eq, since, until, within
from retrieval.judge import Hits
from retrieval.perspective import Holder

MAX_TOP_K = 100


@dataclass
class Hit:
    item: KnowledgeItem
    score: float
    matched_by: str  # "vector" | "keyword" | "both" | "conversation" (via its source turn)
    relevance: float = 0.0  # in [0, 1], comparable across queries
    via: str = ""  # how it relates to an entity the question names ("my partner is Rui")
    older_than: int | None = None  # a diary note: the hit corrected after it was written


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
# A diary note's age counts as seed 004 ranks them: 70% what it says, 30% how recent it is,
# recency 1 / (1 + age in days x NOTE_DECAY): today 1, ten days 0.5, a month 0.25.
NOTE_RECENCY = 0.3
NOTE_DECAY = 0.1
NOTE_OVERFETCH = 3  # hits considered per wanted one, so a recent note can move up into top_k
BROAD_RELEVANCE = 0.5  # what matters most of a person answers "what do you know about me"
MAX_QUERIES = pipeline.MAX_PHRASINGS  # the caller's own phrasings beside the query


def _in_zone(
    reader: Callable[..., when.TimeRead | None], query: str, *, user: Any, now: datetime | None
) -> when.TimeRead | None:
    """What `reader` (`when.read` or `when.ahead`) reads in `query`, in the person's time
    zone; the zone (a settings read) only once the words hold such a time at all."""
    moment = now or timezone.now()
    if reader(query or "", moment) is None:
        return None
    return reader(query or "", moment, user_tz(user))


def read_time(
    query: str,
    *,
    user: Any,
    now: datetime | None,
    time_from: datetime | None,
    time_to: datetime | None,
) -> tuple[str, dict | None, datetime | None, datetime | None]:
    """(the question without its time words, what was read (`TimeRead.answer`), the
    bounds to search within): "yesterday" in the person's time zone (`retrieval.when`),
    within the caller's bounds. A window that holds none of the person's items narrows
    nothing and the question is searched as asked ("moved here 4 years ago" may be what
    a memory says; `used` false tells)."""
    read = _in_zone(when.read, query, user=user, now=now)
    if read is None:
        return query, None, time_from, time_to
    start = max(read.start, time_from) if time_from else read.start
    end = min(read.end, time_to) if time_to else read.end
    held = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(created_at__gte=start, created_at__lt=end)
    )
    if not held.exists():  # nothing of theirs then: the words may be what was said
        return query, read.answer(used=False), time_from, time_to
    return read.rest, read.answer(), start, end


def read_due(query: str, *, user: Any, now: datetime | None) -> tuple[str, dict | None, Q | None]:
    """(the question without its words of time to come, what was read, the condition on
    the items due then): "What do I have tomorrow?" asks what is due tomorrow
    (`when.ahead`, in the person's time zone). A window in which nothing of theirs is due
    narrows nothing (`used` false), as for the time past."""
    read = _in_zone(when.ahead, query, user=user, now=now)
    if read is None:
        return query, None, None
    due = Q(due_at__gte=read.start, due_at__lt=read.end)
    if not KnowledgeItem.objects.for_user(user).active().filter(due).exists():
        return query, read.answer(used=False), None
    return read.rest, read.answer(), due


def phrasings_of(queries: Sequence[str] | None, holder: Holder) -> list[tuple[str, str]]:
    """The caller's phrasings (at most MAX_QUERIES), each without time words, as searched
    and as the judge would read it."""
    found = []
    for text in list(queries or [])[:MAX_QUERIES]:
        if not isinstance(text, str) or not text.strip():
            continue
        read = when.read(text, timezone.now())
        text = read.rest if read else text
        found.append((perspective.as_stored(text, holder), perspective.for_judge(text, holder)))
    return found


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


def _in_window(
    owned: Any, owner_id: int, scope: Filters, top_k: int, read: dict, *, due: bool = False
) -> Hits:
    """A question that names a time and no topic ("what did I tell you yesterday?"): the
    items of that time, newest first; of a time to come (`due`, "what do I have
    tomorrow?"), what is due then, soonest first."""
    ids = pipeline.in_scope(ITEMS, owner_id, scope)
    items = owned.filter(pk__in=ids).select_related("agent").defer("embedding")
    order = ("due_at", "pk") if due else ("-created_at", "-pk")
    items = items.order_by(*order)[:top_k]
    hits = [Hit(item, BROAD_RELEVANCE, "time", BROAD_RELEVANCE) for item in items]
    return Hits(hits, reason="time range", time_read=read)


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
    queries: Sequence[str] | None = None,
    now: datetime | None = None,
) -> Hits:
    """The user's items that best answer `query`, best first (at most `top_k`), each at
    least `min_relevance` relevant (default GAIA_MIN_RELEVANCE; 0 returns every candidate).
    `agent` keeps only what the user's agent of that name stored (none if no such agent).
    `judge=False` takes the fast path: the fused order, without the relevance judge. The
    answer says whether it was judged (`Hits.judged`). `matching` (a condition on the
    user's items, e.g. `memory.item_conditions`) keeps only the items it selects, before
    anything is ranked, so `top_k` is filled from them.

    `queries` are up to MAX_QUERIES other phrasings of the question (the caller's words,
    a hypothetical answer): searched with it, fused into one ranking, judged once with
    the question. A time the question names as people say it ("yesterday", "about a
    week ago", in the person's time zone, counted from `now`) narrows the search to that
    window and is no topic; the answer says what was read (`Hits.time_read`). Words
    that ask for the newest ("lately", "the latest", "last time") are no topic either:
    of the hits that answer, the newest come first.

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
    query = as_typed(query or "")  # "I’m" typed on a phone asks what "I'm" does
    queries = [as_typed(q) if isinstance(q, str) else q for q in queries or []]
    topic, said, due = query, None, None
    ahead_first = when.speaks_ahead(topic)
    if ahead_first:  # "What do I have this week?": what is due, if anything is
        topic, said, due = read_due(topic, user=user, now=now)
    if due is None:
        past = read_time(query, user=user, now=now, time_from=time_from, time_to=time_to)
        if past[1] is not None or said is None:  # a time past, or no time to come either
            topic, said, time_from, time_to = past
    if said is None and not ahead_first:  # no time past: a time to come is what is due then
        topic, said, due = read_due(topic, user=user, now=now)
    read = said if said and said["used"] else None
    newest = when.recent(topic) if read is None else None
    topic = newest[0] if newest else topic
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
    if due is not None:
        matching = due if matching is None else matching & due
    if matching is not None:
        sql, params = owned.filter(matching).values("pk").query.sql_with_params()
        scope.append(within("id", Rows(sql, tuple(params))))
    holder = holder_of(user)
    phrasings = phrasings_of(queries, holder)
    clause = asked.asked_clause(topic)  # "I have a toothache, who is my dentist?"
    if clause and len(phrasings) < MAX_QUERIES:
        phrasings.append(
            (perspective.as_stored(clause, holder), perspective.for_judge(clause, holder))
        )
    if read is None and perspective.asks_about_holder(topic, holder):
        return _about_holder(owned, user.pk, scope, top_k)
    if read is not None and not phrasings and perspective.names_no_topic(topic, holder):
        return _in_window(owned, user.pk, scope, top_k, said, due=due is not None)
    related = graph.related(user=user, query=topic)
    if holder.also:  # which form their memories use cannot be told yet: both are searched
        phrasings.append((perspective.as_stored(topic, holder, holder.also), ""))

    verdict = pipeline.hybrid(
        ITEMS,
        owner_id=user.pk,
        query=perspective.as_stored(topic, holder),
        filters=scope,
        top_k=top_k,
        keep=min(MAX_TOP_K, top_k * NOTE_OVERFETCH),
        documents=lambda ids: _as_read(owned, ids, related, holder),
        min_relevance=settings.GAIA_MIN_RELEVANCE if min_relevance is None else min_relevance,
        also=relations.searches(related),
        asked=perspective.for_judge(topic, holder),
        judged=judge,
        phrasings=phrasings,
        unspoken=perspective.holder_words(holder),
        timed=read is not None,
    )
    hits = _hits(owned, verdict.hits, related, top_k=top_k, moment=now)
    if newest:  # "lately": of what answers about as well as the best, the newest first
        hits = pipeline.newest_first(hits, lambda h: h.relevance, lambda h: h.item.created_at)
    return Hits(
        hits,
        judged=verdict.judged,
        reason=verdict.reason,
        time_read=said,
    )


def _as_read(
    owned: Any, ids: list[int], related: Related | None, holder: Holder = perspective.NOBODY
) -> dict[int, str]:
    """What the judge reads of each item: an item a relation brought, after the relation;
    the holder's names as "User" (`perspective.judged_text`)."""
    rows = owned.filter(pk__in=ids).values_list("pk", "content", "entity")
    if related is None:
        shown = {pk: content for pk, content, _ in rows}
    else:
        shown = {pk: relations.shown(content, related.via(pk, ent)) for pk, content, ent in rows}
    return {pk: perspective.judged_text(text, holder) for pk, text in shown.items()}


def note_weight(note: bool, written: datetime, now: datetime) -> float:
    """What a hit's score counts for when hits are ordered: 1 for a fact; for a diary
    note (`note`, written at `written`) NOTE_WEIGHT (it yields to a current fact that
    answers as well) times its blend of relevance and recency (seed 004: 70% / 30%,
    recency 1 / (1 + days x 0.1))."""
    if not note:
        return 1.0
    days = max(0.0, (now - written).total_seconds() / 86400)
    recency = 1.0 / (1.0 + days * NOTE_DECAY)
    return NOTE_WEIGHT * ((1 - NOTE_RECENCY) + NOTE_RECENCY * recency)


def _by_age(owned: Any, ranked: list[Any], top_k: int, now: datetime) -> list[Any]:
    """The first `top_k` of `ranked` once diary notes are weighed by age (`note_weight`),
    read with one light statement (no models): a recent note can move up into `top_k`."""
    if len(ranked) <= top_k:
        return ranked
    rows = owned.filter(pk__in=[r.id for r in ranked]).values_list(
        "pk", "category", "entity", "created_at"
    )
    weight = {
        pk: note_weight(category == "note" and entity.startswith(SESSION_ENTITY), written, now)
        for pk, category, entity, written in rows
    }
    if all(w == 1.0 for w in weight.values()):
        return ranked[:top_k]
    return sorted(ranked, key=lambda r: -r.score * weight.get(r.id, 1.0))[:top_k]


def _hits(
    owned: Any,
    ranked: list[Any],
    related: Related | None,
    *,
    top_k: int = MAX_TOP_K,
    moment: datetime | None = None,
) -> list[Hit]:
    """The ranked rows as hits, read in one query; a diary note is evidence of what was
    said in its session, not what holds now: it yields to a current fact that answers as
    well ("where do I live": Lisbon before a note from when the person lived in Porto),
    a recent note comes before an older one that answers about as well (`note_weight`),
    and a note comes after any hit corrected since it was written (`_after_corrections`).
    Relevances agree with the final order (`pipeline.relevances_in_order`)."""
    now = moment or timezone.now()
    ranked = _by_age(owned, ranked, top_k, now)
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
    hits.sort(key=lambda h: -h.score * note_weight(h.item.is_diary_note, h.item.created_at, now))
    hits = _after_corrections(owned, hits)
    for hit, relevance in zip(
        hits, pipeline.relevances_in_order([h.relevance for h in hits]), strict=True
    ):
        hit.relevance = relevance
    return hits


def _after_corrections(owned: Any, hits: list[Hit]) -> list[Hit]:
    """Each diary note among `hits` that was written before a correction of another hit
    (the fact's earlier text was replaced, or it superseded an older item, after the
    note) comes right after that fact and says so (`older_than`): "I live in Porto" in a
    note of a session before "I moved to Lisbon" is what was said then. Two statements,
    only when a note is among the hits."""
    notes = [h for h in hits if h.item.is_diary_note]
    facts = [h for h in hits if not h.item.is_diary_note]
    if not notes or not facts:
        return hits
    ids = [h.item.pk for h in facts]
    changed: dict[int, Any] = {}
    for item_id, moment in MemoryVersion.objects.filter(item_id__in=ids).values_list(
        "item_id", "created_at"
    ):
        changed[item_id] = max(moment, changed.get(item_id, moment))
    replaced = owned.filter(superseded_by_id__in=ids).values_list("superseded_by_id", "updated_at")
    for item_id, moment in replaced:
        changed[item_id] = max(moment, changed.get(item_id, moment))
    if not changed:
        return hits
    order = list(hits)
    for note in notes:
        newer = [
            f for f in facts if f.item.pk in changed and changed[f.item.pk] > note.item.created_at
        ]
        if not newer:
            continue
        fact = newer[0]
        note.older_than = fact.item.pk
        order.remove(note)
        order.insert(order.index(fact) + 1, note)
    return order
