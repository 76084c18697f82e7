"""Near-duplicate detection by word overlap (Szymkiewicz-Simpson coefficient)."""

import re

from memory.fulltext_schema import KNOWLEDGE_FTS
from memory.models import KnowledgeItem
from memory.search import keyword

DEDUP_THRESHOLD = 0.8
_CANDIDATES = 50
_WORD = re.compile(r"\w+", re.UNICODE)


def word_set(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def overlap(a: str, b: str) -> float:
    """Shared words / size of the smaller word set (0 when either is empty)."""
    wa, wb = word_set(a), word_set(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / min(len(wa), len(wb))


def find_duplicate(
    *, owner_id: int, content: str, category: str, context: str, entity: str
) -> KnowledgeItem | None:
    """The active item in the same category + context + entity that `content` repeats."""
    where = (
        keyword.Where()
        .add("t.owner_id = %s", owner_id)
        .add("t.forgotten_at IS NULL")
        .add("t.superseded_by_id IS NULL")
        .add("t.category = %s", category)
        .add("t.context = %s", context)
        .add("t.entity = %s", entity)
    )
    ids = [
        row_id
        for row_id, _ in keyword.search(KNOWLEDGE_FTS, content, where, _CANDIDATES, any_term=True)
    ]
    if not ids:
        return None
    # Compare texts only; the full row is loaded for the winner alone (hot write path).
    words = word_set(content)
    best, best_score = None, 0.0
    candidates = KnowledgeItem.objects.filter(pk__in=ids, owner_id=owner_id)
    for pk, text in candidates.values_list("pk", "content"):
        other = word_set(text)
        score = len(words & other) / min(len(words), len(other)) if words and other else 0.0
        if score >= DEDUP_THRESHOLD and score > best_score:
            best, best_score = pk, score
    return KnowledgeItem.objects.get(pk=best) if best is not None else None
