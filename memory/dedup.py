"""Write-time dedup by meaning: a new item folds into an existing one only when both say
the same thing; two texts that share most words but differ in what matters are two
facts, linked as a possible conflict for reconciliation to judge.

"The same thing" is the same content words, numbers, names and polarity, in any form:
case, punctuation, word order, articles and auxiliaries ("the", "is"), inflection
("hikes"/"hiking"), contractions ("isn't" = "is not"). Each text becomes a *meaning key*
(its content words, lightly stemmed); equal keys fold. So does a refinement: one text
saying all the other says and more ("Prefers window seats" and "User prefers window
seats on long flights", an agent's `remember` and extraction of the same turn), unless
what it adds turns the statement round ("not", "never", "no longer", "used to"): the
fold keeps the fuller text. "User loves hiking in the Alps" and "... in the Dolomites",
"... on Monday" and "... on Friday", "allergic" and "not allergic" differ in their keys:
they are kept apart, and linked (`KnowledgeItem.conflicts_with`) when their keys share
most words (NEAR_THRESHOLD of the smaller key, at least NEAR_MIN_SHARED words). A
synonym ("likes" / "prefers") is not recognised: such a rewrite is kept as its own item.
Whoever saves a fold that changed the text keeps the earlier text as a version.
"""

import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any, Literal, TypeVar

from django.utils import timezone

from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from retrieval import pipeline
from retrieval.documents import item_text
from retrieval.embedding import current_model_id
from retrieval.embedding.ahead import ahead_vectors
from retrieval.filters import Filter, eq
from retrieval.neighbours import nearest_ids
from retrieval.relevance import stem

NEAR_THRESHOLD = 0.75
NEAR_MIN_SHARED = 2
DEDUP_THRESHOLD = 0.8  # plain word overlap, for callers comparing with corrected texts
_CANDIDATES = 50
_WORD = re.compile(r"\w+", re.UNICODE)
_CONTRACTIONS = (
    (re.compile(r"\b(can)not\b|\bcan['’]t\b", re.I), "can not"),
    (re.compile(r"\bwon['’]t\b", re.I), "will not"),
    (re.compile(r"n['’]t\b", re.I), " not"),
    (re.compile(r"['’]ll\b", re.I), " will"),
    (re.compile(r"['’]ve\b", re.I), " have"),
    (re.compile(r"['’](s|re|m|d)\b", re.I), ""),
)
# Words that carry form, not meaning: articles and the auxiliaries of "is"/"does".
FORM_WORDS = frozenset(
    "a an the is are am be been being do does did s".split()
)  # fmt: skip
# Words that turn a statement round: a text that adds one of these to another does not
# refine it, it contradicts it ("works at Acme" / "no longer works at Acme").
TURNING_WORDS = frozenset(
    "not no never nor neither none nothing nobody without longer anymore formerly "
    "previously former ex used stopped quit until".split()
)  # fmt: skip
Outcome = Literal["fold", "conflict", "new"]
K = TypeVar("K")


def word_set(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def overlap(a: str, b: str) -> float:
    """Shared words / size of the smaller word set (0 when either is empty)."""
    return word_overlap(word_set(a), word_set(b))


def word_overlap(a: Collection[str], b: Collection[str]) -> float:
    if not a or not b:
        return 0.0
    return len(set(a) & set(b)) / min(len(a), len(b))


def _stem(word: str) -> str:
    """The word's Porter stem, as the full-text index stems it ("hikes", "hiking", "hiked"
    -> "hike"). Porter strips a suffix only where a vowel stays before it, so a code or a
    name that happens to end in "ed" or "s" ("mkbqced", "Ross") keeps its letters."""
    return word if word.isdigit() else stem(word)


@lru_cache(maxsize=4096)
def meaning_key(text: str) -> frozenset[str]:
    """The content words of `text`, stemmed: equal keys say the same thing. A text of
    form words only keeps all its words."""
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    words = _WORD.findall(text.lower())
    content = [w for w in words if w not in FORM_WORDS] or words
    return frozenset(_stem(w) for w in content)


def near(a: frozenset[str], b: frozenset[str]) -> float:
    """How much two meaning keys share (0 when too little to be about the same thing)."""
    shared = len(a & b)
    if shared < NEAR_MIN_SHARED:
        return 0.0
    score = shared / min(len(a), len(b))
    return score if score >= NEAR_THRESHOLD else 0.0


@lru_cache(maxsize=1)
def _turning() -> frozenset[str]:
    return frozenset(_stem(w) for w in TURNING_WORDS)


def refines(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether one key says all the other says, and more that does not turn it round
    (the two agree: one is the fuller statement)."""
    smaller, larger = (a, b) if len(a) <= len(b) else (b, a)
    if len(smaller) < NEAR_MIN_SHARED or not smaller < larger:
        return False
    return not (larger - smaller) & _turning()


def judge(
    key: frozenset[str], candidates: Iterable[tuple[K, frozenset[str]]]
) -> tuple[K | None, Outcome]:
    """What a text of meaning `key` is to `candidates` (in order, oldest first): the
    first that says the same ("fold"), else the first it refines or that refines it
    ("fold": they agree), else the nearest that shares most words, the newest on ties,
    so a chain of corrections links each to the one before ("conflict"), else nothing
    ("new")."""
    best, best_score, refined = None, 0.0, None
    for other_key, other in candidates:
        if other == key:
            return other_key, "fold"
        if refined is None and refines(key, other):
            refined = other_key
        score = near(key, other)
        if score and score >= best_score:
            best, best_score = other_key, score
    if refined is not None:
        return refined, "fold"
    return (best, "conflict") if best is not None else (None, "new")


def _scope(category: str, context: str, entity: str) -> list[Filter]:
    return [eq("category", category), eq("context", context), eq("entity", entity)]


def candidate_ids(
    *, owner_id: int, content: str, category: str, context: str, entity: str
) -> list[int]:
    """Active items in the same category + context + entity sharing words with `content`."""
    scope = _scope(category, context, entity)
    return pipeline.keyword_ids(ITEMS, owner_id, content, scope, limit=_CANDIDATES, any_term=True)


def candidates_for(owner_id: int, rows: list[dict[str, Any]]) -> list[list[int]]:
    """For each row (content, category, context, entity; "alone" rows get none): the
    active items of its scope it may repeat, oldest first.

    By meaning when the write embedded its texts ahead (`embedded_ahead`, the current
    model): the items among the _CANDIDATES nearest to the row's vector in the owner's
    index, which holds every embedded item, so a repeat, a refinement or a near-miss
    of a stored item is found by the vector the write computed anyway. Otherwise (a
    remote embedder, nothing embedded ahead) by a full-text query per row, as before.
    """
    texts = [item_text(content=row["content"]) for row in rows]
    ahead = ahead_vectors(texts)
    wanted = [n for n, row in enumerate(rows) if not row.get("alone")]
    out: list[list[int]] = [[] for _ in rows]
    if ahead and ahead[0] == current_model_id() and all(ahead[1][n] is not None for n in wanted):
        model_id, vectors = ahead
        found = nearest_ids(
            ITEMS,
            owner_id,
            [vectors[n] for n in wanted],
            model_id=model_id,
            k=_CANDIDATES,
            filters=[
                _scope(rows[n]["category"], rows[n]["context"], rows[n]["entity"]) for n in wanted
            ],
        )
        for n, ids in zip(wanted, found, strict=True):
            out[n] = sorted(ids)
        return out
    for n in wanted:
        row = rows[n]
        out[n] = candidate_ids(
            owner_id=owner_id,
            content=row["content"],
            category=row["category"],
            context=row["context"],
            entity=row["entity"],
        )
    return out


def find_match(
    *,
    owner_id: int,
    content: str,
    category: str,
    context: str,
    entity: str,
    exclude: Collection[int] = (),
) -> tuple[KnowledgeItem | None, Outcome]:
    """The active item in the same category + context + entity that `content` repeats
    ("fold") or may conflict with ("conflict"), never one of `exclude` (see `judge`)."""
    ids = candidate_ids(
        owner_id=owner_id, content=content, category=category, context=context, entity=entity
    )
    ids = [pk for pk in ids if pk not in exclude]
    if not ids:
        return None, "new"
    rows = KnowledgeItem.objects.filter(pk__in=ids, owner_id=owner_id).order_by("pk")
    texts = rows.values_list("pk", "content")
    found, outcome = judge(meaning_key(content), ((pk, meaning_key(t)) for pk, t in texts))
    return (KnowledgeItem.objects.get(pk=found) if found is not None else None), outcome


def fold(item: KnowledgeItem, fields: dict[str, Any], *, source: str) -> None:
    """Fold a repeat into `item` (not saved): newer content wins unless the item's says
    more (a refinement folds into the fuller text), confidence is the max of both, a
    `user` source is kept, sensitive and pinned stick, importance is the max, metadata
    is merged."""
    fuller = meaning_key(fields["content"]) < meaning_key(item.content)
    if fields["content"] != item.content and not fuller:
        item.content = fields["content"]
        item.embedding = None
        item.embedding_model = ""
        item.tokens = None
        item.tokens_model = ""
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
