"""Storing validated new items in order, exactly as one `memory_create` per entry would.

Each entry is compared with the active items of its scope (category + context + entity)
that already exist, through one full-text lookup per entry made before anything is
written, and with the rows the batch has written before it, in memory (`BatchWords`:
all of them, where the lookup keeps its 50 best matches, so it never misses a repeat
the lookup would find). A repeat is folded into the row it repeats (`dedup.fold`), ties
going to the oldest row as in `find_duplicate`; the rest are inserted with one
`bulk_create`. The full-text index follows the rows (SQLite triggers, PostgreSQL
generated column); the caller announces the change (`events.items_changed`), so the
whole batch is embedded together on commit.
"""

import copy
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache
from typing import Any

from memory import dedup, versions
from memory.models import KnowledgeItem, MemoryVersion

# (0, pk): an item that existed before the batch; (1, n): the new row of entry n.
# Keys sort like the ids the rows have (or will have), which decides ties as pk order does.
Key = tuple[int, int]
Scope = tuple[str, str, str]
FOLD_REASON = "a near-duplicate was folded in"
_ROW_ONLY = ("source", "source_turn", "agent_id")  # set on a new row; a fold keeps the item's own


@cache
def _need(size: int) -> int:
    """Fewest shared words that bring a set of `size` words past the dedup threshold."""
    return next((n for n in range(1, size + 1) if n / size > dedup.DEDUP_THRESHOLD), size)


class BatchWords:
    """Word sets of the rows a batch wrote so far, per scope, found without trying each.

    Prefix filtering: with words ranked (rarest in the batch first), two sets reaching
    the threshold share at least `_need(m)` words (m: the smaller size), so one of them
    is among the first m - _need(m) + 1 words of the smaller set. A row is indexed under
    all its words and under that prefix; a probe looks up its own prefix in the first
    index (rows at least as large) and all its words in the second (smaller rows).
    """

    def __init__(self, texts: Iterable[set[str]]) -> None:
        self._counts = Counter(word for words in texts for word in words)
        self.words: dict[Key, set[str]] = {}
        self._all: dict[tuple[Scope, str], list[Key]] = defaultdict(list)
        self._prefix: dict[tuple[Scope, str], list[Key]] = defaultdict(list)

    def _prefix_of(self, words: set[str]) -> list[str]:
        ranked = sorted(words, key=lambda word: (self._counts[word], word))
        return ranked[: len(words) - _need(len(words)) + 1]

    def add(self, key: Key, scope: Scope, words: set[str]) -> None:
        """Record `key`'s current words (a fold replaces them; old postings only add
        candidates that the caller's scoring then rejects)."""
        self.words[key] = words
        if not words:
            return
        for word in words:
            self._all[(scope, word)].append(key)
        for word in self._prefix_of(words):
            self._prefix[(scope, word)].append(key)

    def candidates(self, scope: Scope, words: set[str]) -> set[Key]:
        """Every row of `scope` that `words` may repeat (a superset)."""
        if not words:
            return set()
        found: set[Key] = set()
        for word in self._prefix_of(words):
            found.update(self._all.get((scope, word), ()))
        for word in words:
            found.update(self._prefix.get((scope, word), ()))
        return found


def _scope(row: dict[str, Any]) -> Scope:
    return (row["category"], row["context"], row["entity"])


def _stored_words(user: Any, ids: set[int]) -> dict[int, set[str]]:
    rows = KnowledgeItem.objects.for_user(user).filter(pk__in=ids)
    return {pk: dedup.word_set(text) for pk, text in rows.values_list("pk", "content")}


def _plan(
    rows: list[dict[str, Any]], hits: list[list[int]], stored: dict[int, set[str]]
) -> list[tuple[Key, bool]]:
    """For each row, in order: the key it is stored under, and whether it folds into it."""
    words_of = [dedup.word_set(row["content"]) for row in rows]
    seen = BatchWords(words_of)
    plan: list[tuple[Key, bool]] = []
    for row, ids, words in zip(rows, hits, words_of, strict=True):
        scope = _scope(row)
        keys = sorted({(0, pk) for pk in ids} | seen.candidates(scope, words))
        current = ((k, seen.words[k] if k in seen.words else stored.get(k[1], set())) for k in keys)
        key = dedup.best_match(words, current)
        plan.append((key, True) if key is not None else ((1, len(plan)), False))
        seen.add(plan[-1][0], scope, words)  # after a fold the newer content is this one
    return plan


def items_store(*, user: Any, rows: list[dict[str, Any]]) -> list[KnowledgeItem]:
    """Store validated rows (fields as `memory_create` cleans them, plus `source` and
    `source_turn`) in order, inside the caller's transaction.

    Returns one item per row; `deduplicated` is True where the row was folded into an
    existing item or an earlier row of the batch (then the item shows the row as that
    fold left it, like a fresh read after each single write).
    """
    hits = [
        dedup.candidate_ids(
            owner_id=user.pk,
            content=row["content"],
            category=row["category"],
            context=row["context"],
            entity=row["entity"],
        )
        for row in rows
    ]
    plan = _plan(rows, hits, _stored_words(user, {pk for ids in hits for pk in ids}))
    return _write(user, rows, plan)


def _write(
    user: Any, rows: list[dict[str, Any]], plan: list[tuple[Key, bool]]
) -> list[KnowledgeItem]:
    """Carry out the plan: build the new rows, apply the folds in order, then write."""
    folded = [key[1] for key, folds in plan if folds and key[0] == 0]
    live: dict[Key, KnowledgeItem] = {
        (0, pk): item for pk, item in KnowledgeItem.objects.for_user(user).in_bulk(folded).items()
    }
    stored = {key: versions.snapshot(item) for key, item in live.items()}
    folded_by: dict[Key, str] = {}
    shared: set[Key] = set()  # new rows whose object is also returned for their entry
    out: list[KnowledgeItem] = []
    for row, (key, folds) in zip(rows, plan, strict=True):
        fields = {name: value for name, value in row.items() if name not in _ROW_ONLY}
        if not folds:
            item = KnowledgeItem(
                owner=user,
                source=row["source"],
                source_turn=row["source_turn"],
                agent_id=row.get("agent_id"),
                **fields,
            )
            item.deduplicated = False
            live[key] = item
            shared.add(key)
            out.append(item)
            continue
        if key in shared:  # the entry that created it keeps the row as it was created
            live[key] = copy.copy(live[key])
            shared.discard(key)
        dedup.fold(live[key], fields, source=row["source"])
        folded_by[key] = row["source"]
        snapshot = copy.copy(live[key])
        snapshot.deduplicated = True
        out.append(snapshot)
    KnowledgeItem.objects.bulk_create([item for key, item in live.items() if key[0] == 1])
    kept = [
        versions.version_build(before, change_source=folded_by[key], reason=FOLD_REASON)
        for key, before in stored.items()
        if versions.says_other(before, live[key])
    ]
    MemoryVersion.objects.bulk_create(kept)
    for key, item in live.items():
        if key[0] == 0:
            item.save()
    for item, (key, _) in zip(out, plan, strict=True):
        if item.pk is None:  # a copy of a row inserted after it was taken
            item.pk = live[key].pk
            item._state.adding, item._state.db = False, live[key]._state.db
    return out
