"""Reconciliation: the LLM judges near-duplicate pairs of one user's active items.

Pairs come first from the possible conflicts a write linked (`conflicts_with`: two items
sharing most words that say something else, memory/dedup.py), embedded or not, then from
the stored embeddings (one embedding model at a time): cosine >= 0.85 among each item's
5 nearest neighbours in the same context; at most 20 pairs a run, pairs already judged
skipped. Outcomes: reinforce (+0.05 both), contradict (older superseded by newer, newer
+0.1), weaken (older -0.1), neutral. Each judged pair is recorded in the same transaction
as its effect, and its conflict link dropped, so a re-run applies it once. Without an LLM
the linked pairs wait, visible on both items.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count

from core.queue import enqueue_now
from learning import asks, prompts
from learning.graph_follow import graph_follow_replaced
from learning.llm import LLMError, get_llm, llm_configured
from learning.models import ReconciledPair
from memory.lineage import memory_conflict_settle, memory_supersede_by
from memory.models import KnowledgeItem
from memory.services import memory_update

THRESHOLD = 0.85
NEIGHBOURS = 5
MAX_PAIRS = 20
MAX_ITEMS = 2000


@dataclass
class Pair:
    older: KnowledgeItem
    newer: KnowledgeItem
    similarity: float

    @property
    def key(self) -> tuple[int, int]:
        return tuple(sorted((self.older.pk, self.newer.pk)))  # type: ignore[return-value]


def _vectors(items: list[KnowledgeItem]) -> tuple[list[KnowledgeItem], np.ndarray]:
    """Unit vectors of the items whose embedding is sound (right size, finite)."""
    raw = [np.frombuffer(bytes(i.embedding), dtype=np.float32) for i in items]
    dims = [len(v) for v in raw]
    dim = max(set(dims), key=dims.count) if dims else 0
    keep = [(i, v) for i, v in zip(items, raw, strict=True) if len(v) == dim and dim]
    keep = [(i, v) for i, v in keep if np.isfinite(v).all() and np.linalg.norm(v) > 0]
    if not keep:
        return [], np.zeros((0, 0), dtype=np.float32)
    matrix = np.stack([v for _, v in keep])
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return [i for i, _ in keep], matrix


def linked_pairs(*, user: Any, max_pairs: int = MAX_PAIRS) -> list[Pair]:
    """The not-yet-judged possible conflicts between the user's active items, oldest
    link first."""
    active = KnowledgeItem.objects.for_user(user).active()
    newer = list(
        active.filter(conflicts_with__in=active).select_related("conflicts_with").order_by("pk")
    )
    judged = set(ReconciledPair.objects.for_user(user).values_list("low", "high"))
    pairs = []
    for item in newer:
        a, b = sorted((item.conflicts_with, item), key=lambda i: (i.created_at, i.pk))
        pair = Pair(older=a, newer=b, similarity=0.0)
        if pair.key not in judged:
            pairs.append(pair)
    return pairs[:max_pairs]


def candidate_pairs(*, user: Any, max_pairs: int = MAX_PAIRS) -> list[Pair]:
    """The pairs to judge: the linked possible conflicts, then the most similar
    not-yet-judged pairs of the user's active embedded items."""
    linked = linked_pairs(user=user, max_pairs=max_pairs)
    keys = {pair.key for pair in linked}
    similar = [p for p in similar_pairs(user=user, max_pairs=max_pairs) if p.key not in keys]
    return (linked + similar)[:max_pairs]


def similar_pairs(*, user: Any, max_pairs: int = MAX_PAIRS) -> list[Pair]:
    """The most similar not-yet-judged pairs of the user's active embedded items."""
    # A diary note is evidence of one conversation, never merged with another's.
    active = KnowledgeItem.objects.for_user(user).active().without_diary_notes()
    embedded = active.exclude(embedding__isnull=True)
    embedded = embedded.exclude(embedding_model="")
    model = embedded.values("embedding_model").annotate(n=Count("pk")).order_by("-n").first()
    if model is None:
        return []
    items = list(
        embedded.filter(embedding_model=model["embedding_model"]).order_by("-updated_at")[
            :MAX_ITEMS
        ]
    )
    items, matrix = _vectors(items)
    if len(items) < 2:
        return []
    sims = matrix @ matrix.T
    contexts = np.array([i.context for i in items])
    sims[contexts[:, None] != contexts[None, :]] = -1.0  # merges stay within a context
    np.fill_diagonal(sims, -1.0)
    judged = set(ReconciledPair.objects.for_user(user).values_list("low", "high"))
    k = min(NEIGHBOURS, len(items) - 1)
    found: dict[tuple[int, int], Pair] = {}
    for row in range(len(items)):
        for col in np.argpartition(-sims[row], k - 1)[:k]:
            score = float(sims[row, col])
            if score < THRESHOLD:
                continue
            a, b = sorted((items[row], items[col]), key=lambda i: (i.created_at, i.pk))
            pair = Pair(older=a, newer=b, similarity=score)
            if pair.key not in judged:
                found[pair.key] = pair
    return sorted(found.values(), key=lambda p: -p.similarity)[:max_pairs]


def reconcile_user(*, user: Any, dry_run: bool = False) -> dict[str, Any]:
    """Judge up to MAX_PAIRS pairs of one user's items and apply the outcomes."""
    pairs = candidate_pairs(user=user)
    counts = {"pairs": len(pairs), **{o: 0 for o in prompts.OUTCOMES}}
    if dry_run or not pairs:
        return counts
    llm = get_llm()
    if llm is None:
        return {**counts, "status": "waiting", "reason": "no LLM configured"}
    shown = [
        {
            "pair": n,
            "older": {"content": p.older.content, "created": p.older.created_at.date()},
            "newer": {"content": p.newer.content, "created": p.newer.created_at.date()},
        }
        for n, p in enumerate(pairs)
    ]
    try:
        answer = asks.RECONCILE.answer(llm, "Pairs", shown, user=user, purpose="reconciliation")
    except LLMError as error:
        return {**counts, "status": "failed", "reason": f"{error.kind}: {error}"}
    with transaction.atomic():
        for judgement in answer["judgements"]:
            if 0 <= judgement["pair"] < len(pairs):
                outcome = judgement["outcome"]
                if _apply(user, pairs[judgement["pair"]], outcome):
                    counts[outcome] += 1
    return {**counts, "status": "done"}


def _apply(user: Any, pair: Pair, outcome: str) -> bool:
    """Apply one judgement once; False when the pair was judged already or changed."""
    low, high = pair.key
    try:
        with transaction.atomic():
            ReconciledPair.objects.create(
                owner=user, low=low, high=high, outcome=outcome, similarity=pair.similarity
            )
            mine = KnowledgeItem.objects.for_user(user).active()
            older, newer = mine.get(pk=pair.older.pk), mine.get(pk=pair.newer.pk)
            if outcome == "reinforce":
                for item in (older, newer):
                    memory_update(
                        user=user, item_id=item.pk, confidence=min(1.0, item.confidence + 0.05)
                    )
            elif outcome == "contradict":
                memory_supersede_by(user=user, item_id=older.pk, by_id=newer.pk)
                graph_follow_replaced(user=user, old_id=older.pk, new_id=newer.pk)
                memory_update(
                    user=user, item_id=newer.pk, confidence=min(1.0, newer.confidence + 0.1)
                )
            elif outcome == "weaken":
                memory_update(
                    user=user, item_id=older.pk, confidence=max(0.0, older.confidence - 0.1)
                )
            memory_conflict_settle(user=user, item_ids=pair.key)
    except (IntegrityError, ObjectDoesNotExist, ValidationError):
        return False  # judged by a concurrent run, or an item went away meanwhile
    return True


def reconciliation_sweep() -> int:
    """Queue reconciliation for every user with embedded items or possible conflicts
    (none without an LLM)."""
    if not llm_configured():
        return 0
    active = KnowledgeItem.objects.active()
    embedded = active.exclude(embedding__isnull=True).values_list("owner_id", flat=True)
    linked = active.filter(conflicts_with__isnull=False).values_list("owner_id", flat=True)
    owners = sorted(set(embedded.distinct()) | set(linked.distinct()))
    for owner_id in owners:
        enqueue_now("learning.tasks.reconcile_user", (owner_id,), f"gaia:reconcile:{owner_id}", 600)
    return len(owners)
