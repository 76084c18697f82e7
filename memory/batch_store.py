"""Storing validated new items in order, exactly as one `memory_create` per entry would.

Each entry is compared with the active items of its scope (category + context + entity)
that already exist, the nearest to its vector in the owner's index (or, with no vector
computed ahead, a full-text lookup per entry: `dedup.candidates_for`), made before
anything is written, and with the rows the batch has written before it, in memory
(`BatchWords`: all of them, where the lookup keeps its 50 best matches, so it never
misses a match the lookup would find). An entry that says what a row says is folded into it
(`dedup.fold`), ties going to the oldest row as in `find_match`; the rest are
inserted with one `bulk_create`, each linked to the row it shares most words with
when it says something else (`conflicts_with`: a possible conflict). The full-text
index follows the rows (SQLite triggers, PostgreSQL generated column); the caller
announces the change (`memory.changes.items_changed`), so the whole batch is embedded together
on commit.
"""

import copy
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache
from typing import Any, NamedTuple

from memory import dedup, versions
from memory.models import KnowledgeItem, MemoryVersion
from retrieval.documents import item_text
from retrieval.embedding.ahead import embed_soon

# (0, pk): an item that existed before the batch; (1, n): the new row of entry n.
# Keys sort like the ids the rows have (or will have), which decides ties as pk order does.
Key = tuple[int, int]
Scope = tuple[str, str, str]
Words = frozenset[str]
FOLD_REASON = "the same statement was written again"
# Set on a new row; a fold keeps the item's own.
_ROW_ONLY = ("source", "source_turn", "agent_id", "token", "alone")


@cache
def _need(size: int) -> int:
    """Fewest shared words that bring a key of `size` words to the near threshold."""
    return next((n for n in range(1, size + 1) if n / size >= dedup.NEAR_THRESHOLD), size)


class BatchWords:
    """Meaning keys of the rows a batch wrote so far, per scope, found without trying each.

    Prefix filtering: with words ranked (rarest in the batch first), two keys reaching
    the near threshold (equal keys included) share at least `_need(m)` words (m: the
    smaller size), so one of them is among the first m - _need(m) + 1 words of the
    smaller key. A row is indexed under all its words and under that prefix; a probe
    looks up its own prefix in the first index (rows at least as large) and all its
    words in the second (smaller rows).
    """

    def __init__(self, texts: Iterable[Words]) -> None:
        self._counts = Counter(word for words in texts for word in words)
        self.words: dict[Key, Words] = {}
        self._all: dict[tuple[Scope, str], list[Key]] = defaultdict(list)
        self._prefix: dict[tuple[Scope, str], list[Key]] = defaultdict(list)

    def _prefix_of(self, words: Words) -> list[str]:
        ranked = sorted(words, key=lambda word: (self._counts[word], word))
        return ranked[: len(words) - _need(len(words)) + 1]

    def add(self, key: Key, scope: Scope, words: Words) -> None:
        """Record `key`'s current words (a fold replaces them; old postings only add
        candidates that the caller's scoring then rejects)."""
        self.words[key] = words
        if not words:
            return
        for word in words:
            self._all[(scope, word)].append(key)
        for word in self._prefix_of(words):
            self._prefix[(scope, word)].append(key)

    def candidates(self, scope: Scope, words: Words) -> set[Key]:
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


def _stored_words(user: Any, ids: set[int]) -> dict[int, Words]:
    rows = KnowledgeItem.objects.for_user(user).filter(pk__in=ids)
    return {pk: dedup.meaning_key(text) for pk, text in rows.values_list("pk", "content")}


class Step(NamedTuple):
    """What happens to one row: it folds into `key`, or is stored under `key` (a possible
    conflict with `conflict` when it shares most words with a row that says otherwise)."""

    key: Key
    folds: bool
    conflict: Key | None = None


def _plan(
    rows: list[dict[str, Any]], hits: list[list[int]], stored: dict[int, Words]
) -> list[Step]:
    """For each row, in order, what happens to it (`Step`)."""
    words_of = [dedup.meaning_key(row["content"]) for row in rows]
    seen = BatchWords(words_of)
    plan: list[Step] = []
    for row, ids, words in zip(rows, hits, words_of, strict=True):
        scope = _scope(row)
        if row.get("alone"):  # stored on its own (a diary note): never folded nor linked
            plan.append(Step((1, len(plan)), False))
            continue
        keys = sorted({(0, pk) for pk in ids} | seen.candidates(scope, words))
        current = (
            (k, seen.words[k] if k in seen.words else stored.get(k[1], Words())) for k in keys
        )
        key, outcome = dedup.judge(words, current)
        if outcome == "fold":
            plan.append(Step(key, True))
            held = seen.words[key] if key in seen.words else stored.get(key[1], Words())
            words = held if words < held else words  # a fold keeps the fuller text
        else:
            plan.append(Step((1, len(plan)), False, key))
        seen.add(plan[-1].key, scope, words)  # after a fold the content it keeps is this one
    return plan


def items_store(*, user: Any, rows: list[dict[str, Any]]) -> list[KnowledgeItem]:
    """Store validated rows (fields as `memory_create` cleans them, plus `source` and
    `source_turn`) in order, inside the caller's transaction.

    Returns one item per row; `deduplicated` is True where the row was folded into an
    existing item or an earlier row of the batch (then the item shows the row as that
    fold left it, like a fresh read after each single write); `outcome` says
    "deduplicated", "conflict" (stored, linked to `conflicts_with`) or "new".

    The model starts on the rows' texts first (`embed_soon`), in the background: the
    vectors are ready, or nearly, when the commit embeds the stored rows.
    """
    embed_soon([item_text(content=row["content"]) for row in rows])
    hits = dedup.candidates_for(user.pk, rows)
    plan = _plan(rows, hits, _stored_words(user, {pk for ids in hits for pk in ids}))
    return _write(user, rows, plan)


def _write(user: Any, rows: list[dict[str, Any]], plan: list[Step]) -> list[KnowledgeItem]:
    """Carry out the plan: build the new rows, apply the folds in order, then write."""
    folded = [key[1] for key, folds, _ in plan if folds and key[0] == 0]
    live: dict[Key, KnowledgeItem] = {
        (0, pk): item for pk, item in KnowledgeItem.objects.for_user(user).in_bulk(folded).items()
    }
    stored = {key: versions.snapshot(item) for key, item in live.items()}
    out, folded_by = _apply(user, rows, plan, live)
    KnowledgeItem.objects.bulk_create([item for key, item in live.items() if key[0] == 1])
    _link_within_batch(live, plan)
    MemoryVersion.objects.bulk_create(_kept_versions(stored, live, folded_by))
    for key, item in live.items():
        if key[0] == 0:
            item.save()
    for item, step in zip(out, plan, strict=True):
        if item.pk is None:  # a copy of a row inserted after it was taken
            item.pk = live[step.key].pk
            item._state.adding, item._state.db = False, live[step.key]._state.db
        if not step.folds:
            item.conflicts_with_id = live[step.key].conflicts_with_id
    return out


def _apply(
    user: Any, rows: list[dict[str, Any]], plan: list[Step], live: dict[Key, KnowledgeItem]
) -> tuple[list[KnowledgeItem], dict[Key, dict[str, Any]]]:
    """Build the new rows into `live` and fold rows into it, in order (nothing is written).
    Returns the item of each row, and per folded key the row that folded into it last."""
    folded_by: dict[Key, dict[str, Any]] = {}  # the last fold's row, who wrote it
    shared: set[Key] = set()  # new rows whose object is also returned for their entry
    out: list[KnowledgeItem] = []
    for row, (key, folds, conflict) in zip(rows, plan, strict=True):
        fields = {name: value for name, value in row.items() if name not in _ROW_ONLY}
        if not folds:
            live[key] = _new_row(user, row, fields, conflict)
            shared.add(key)
            out.append(live[key])
            continue
        if key in shared:  # the entry that created it keeps the row as it was created
            live[key] = copy.copy(live[key])
            shared.discard(key)
        dedup.fold(live[key], fields, source=row["source"])
        folded_by[key] = row
        snapshot = copy.copy(live[key])
        snapshot.deduplicated, snapshot.outcome = True, "deduplicated"
        out.append(snapshot)
    return out, folded_by


def _new_row(
    user: Any, row: dict[str, Any], fields: dict[str, Any], conflict: Key | None
) -> KnowledgeItem:
    """The unsaved item of a row stored on its own (linked to an existing item it may
    conflict with; one of the batch is linked once inserted)."""
    item = KnowledgeItem(
        owner=user,
        source=row["source"],
        source_turn=row["source_turn"],
        agent_id=row.get("agent_id"),
        token=row.get("token"),
        **fields,
    )
    if conflict is not None and conflict[0] == 0:
        item.conflicts_with_id = conflict[1]
    item.deduplicated = False
    item.outcome = "conflict" if conflict is not None else "new"
    return item


def _kept_versions(
    stored: dict[Key, KnowledgeItem],
    live: dict[Key, KnowledgeItem],
    folded_by: dict[Key, dict[str, Any]],
) -> list[MemoryVersion]:
    """The earlier version of each existing item a fold made say something else."""
    return [
        versions.version_build(
            before,
            change_source=folded_by[key]["source"],
            token=folded_by[key].get("token"),
            agent_id=folded_by[key].get("agent_id"),
            reason=FOLD_REASON,
        )
        for key, before in stored.items()
        if versions.says_other(before, live[key])
    ]


def _link_within_batch(live: dict[Key, KnowledgeItem], plan: list[Step]) -> None:
    """Link new rows to the earlier rows of the batch they may conflict with (their ids
    are known once inserted)."""
    linked = []
    for step in plan:
        if not step.folds and step.conflict is not None and step.conflict[0] == 1:
            item = live[step.key]
            item.conflicts_with_id = live[step.conflict].pk
            linked.append(item)
    if linked:
        KnowledgeItem.objects.bulk_update(linked, ["conflicts_with"])
