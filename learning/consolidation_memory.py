"""What consolidation knows before it learns: the memories a conversation touches, what
was superseded or retracted, and which turns extraction has learned already.

The model is shown the relevant current memories (recall, every candidate), the earlier
versions of those memories and the retracted or forgotten items sharing its words, each
marked as such. After it answers, a fact repeating a text that was superseded or
retracted after the conversation is dropped: the conversation is older than the
correction, so it cannot undo it.
"""

from datetime import datetime
from typing import Any

from conversations.models import Turn
from memory import dedup
from memory.corpus import ITEMS
from memory.models import KnowledgeItem, MemoryVersion
from memory.recall import recall
from retrieval import pipeline
from retrieval.filters import eq, is_set

LEARNED = {"done", "partial"}  # extraction statuses of turns whose facts are stored
QUERY_CHARS = 4000
SHOWN_CURRENT = 30
SHOWN_PAST = 20
STALE_SCAN = 2000


def all_learned(turns: list[Turn]) -> bool:
    """Every turn that awaited extraction was learned by it (and at least one did)."""
    awaited = [t for t in turns if t.extraction_status]
    return bool(awaited) and all(t.extraction_status in LEARNED for t in awaited)


def _query(turns: list[Turn]) -> str:
    return " ".join(t.content for t in turns if t.role == "user")[:QUERY_CHARS]


def known_memories(*, user: Any, turns: list[Turn]) -> dict[str, list[dict[str, Any]]]:
    """The memories the model sees beside the transcript: current ones, and earlier
    versions and retracted items, marked with when they stopped being true."""
    query = _query(turns) or " ".join(t.content for t in turns)[:QUERY_CHARS]
    hits = recall(user=user, query=query, top_k=SHOWN_CURRENT, min_relevance=0, judge=False)
    current = [h.item for h in hits]
    by_id = {item.pk: item for item in current}
    superseded = [
        {"content": v.content, "replaced_on": v.created_at.date(), "now": by_id[v.item_id].content}
        for v in MemoryVersion.objects.for_user(user)
        .filter(item_id__in=by_id, sensitive=False)
        .order_by("-created_at")[:SHOWN_PAST]
    ]
    superseded += [
        {"content": old.content, "replaced_on": old.updated_at.date(), "now": new.content}
        for old in KnowledgeItem.objects.for_user(user)
        .filter(superseded_by_id__in=by_id, sensitive=False, forgotten_at__isnull=True)
        .order_by("-updated_at")[:SHOWN_PAST]
        for new in [by_id[old.superseded_by_id]]
    ]
    retracted_scope = [is_set("forgotten_at"), eq("sensitive", False)]
    found = pipeline.keyword_ids(
        ITEMS, user.pk, query, retracted_scope, limit=SHOWN_PAST, any_term=True, active_only=False
    )
    retracted = [
        {"content": item.content, "retracted_on": item.forgotten_at.date()}
        for item in KnowledgeItem.objects.for_user(user).filter(pk__in=found)
    ]
    return {
        "current": [{"content": i.content, "category": i.category} for i in current],
        "superseded": superseded,
        "retracted": retracted,
    }


def _changed_since(user: Any, since: datetime) -> list[set[str]]:
    """Word sets of texts that stopped being true after `since`: versions replaced,
    items superseded, forgotten or retracted."""
    texts = list(
        MemoryVersion.objects.for_user(user)
        .filter(created_at__gt=since)
        .order_by("-created_at")
        .values_list("content", flat=True)[:STALE_SCAN]
    )
    mine = KnowledgeItem.objects.for_user(user)
    texts += mine.filter(forgotten_at__gt=since).values_list("content", flat=True)[:STALE_SCAN]
    texts += mine.filter(superseded_by__isnull=False, updated_at__gt=since).values_list(
        "content", flat=True
    )[:STALE_SCAN]
    return [dedup.word_set(text) for text in texts]


def stale_facts(*, user: Any, facts: list[Any], since: datetime) -> list[bool]:
    """For each fact: whether it repeats a text superseded or retracted after `since`
    (the conversation's last turn), so storing it would bring back what was corrected."""
    changed = _changed_since(user, since)
    out = []
    for fact in facts:
        content = fact.get("content") if isinstance(fact, dict) else None
        words = dedup.word_set(content) if isinstance(content, str) else set()
        out.append(any(dedup.word_overlap(words, old) > dedup.DEDUP_THRESHOLD for old in changed))
    return out
