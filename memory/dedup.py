"""Near-duplicate detection by word overlap (Szymkiewicz-Simpson coefficient), and how a
repeated item is folded into the one it repeats.

A repeat is more than DEDUP_THRESHOLD of the smaller word set shared: "Sarah leads the
mobile team" (4 of 5 words of "Sarah leads the platform team") is a new fact, not a repeat.
Whoever saves a fold that changed the text keeps the earlier text as a version.
"""

import re
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

from django.utils import timezone

from memory.models import KnowledgeItem
from retrieval import keyword
from retrieval.fulltext_schema import KNOWLEDGE_FTS

DEDUP_THRESHOLD = 0.8
_CANDIDATES = 50
_WORD = re.compile(r"\w+", re.UNICODE)
K = TypeVar("K")


def word_set(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def overlap(a: str, b: str) -> float:
    """Shared words / size of the smaller word set (0 when either is empty)."""
    return word_overlap(word_set(a), word_set(b))


def word_overlap(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def candidate_ids(
    *, owner_id: int, content: str, category: str, context: str, entity: str
) -> list[int]:
    """Active items in the same category + context + entity sharing words with `content`."""
    where = (
        keyword.Where()
        .add("t.owner_id = %s", owner_id)
        .add("t.forgotten_at IS NULL")
        .add("t.superseded_by_id IS NULL")
        .add("t.category = %s", category)
        .add("t.context = %s", context)
        .add("t.entity = %s", entity)
    )
    hits = keyword.search(KNOWLEDGE_FTS, content, where, _CANDIDATES, any_term=True)
    return [row_id for row_id, _ in hits]


def best_match(words: set[str], candidates: Iterable[tuple[K, set[str]]]) -> K | None:
    """The candidate `words` repeat most (overlap > DEDUP_THRESHOLD); the first on ties."""
    best, best_score = None, 0.0
    for key, other in candidates:
        score = word_overlap(words, other)
        if score > DEDUP_THRESHOLD and score > best_score:
            best, best_score = key, score
    return best


def find_duplicate(
    *,
    owner_id: int,
    content: str,
    category: str,
    context: str,
    entity: str,
    exclude: Collection[int] = (),
) -> KnowledgeItem | None:
    """The active item in the same category + context + entity that `content` repeats
    (never one of `exclude`)."""
    ids = candidate_ids(
        owner_id=owner_id, content=content, category=category, context=context, entity=entity
    )
    ids = [pk for pk in ids if pk not in exclude]
    if not ids:
        return None
    # Compare texts only; the full row is loaded for the winner alone (hot write path).
    rows = KnowledgeItem.objects.filter(pk__in=ids, owner_id=owner_id).order_by("pk")
    texts = rows.values_list("pk", "content")
    best = best_match(word_set(content), ((pk, word_set(text)) for pk, text in texts))
    return KnowledgeItem.objects.get(pk=best) if best is not None else None


def fold(item: KnowledgeItem, fields: dict[str, Any], *, source: str) -> None:
    """Fold a repeat into `item` (not saved): newer content wins, confidence is the max of
    both, a `user` source is kept, sensitive and pinned stick, importance is the max,
    metadata is merged."""
    if fields["content"] != item.content:
        item.content = fields["content"]
        item.embedding = None
        item.embedding_model = ""
    item.confidence = max(item.confidence, fields["confidence"])
    if source == "user":
        item.source = "user"
    item.sensitive = item.sensitive or fields["sensitive"]
    item.pinned = item.pinned or fields.get("pinned", False)
    item.importance = max(item.importance, fields.get("importance", 0.0))
    for name in ("domain", "due_at"):
        if fields.get(name):
            setattr(item, name, fields[name])
    if fields.get("metadata"):
        item.metadata = {**item.metadata, **fields["metadata"]}
    item.updated_at = timezone.now()
