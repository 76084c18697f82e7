"""Bulk seeding for `load_bench --bulk-seed`: many people, minutes not hours.

`memory_bench`'s seeding (bench/speed.py) embeds a few hundred real texts per user, which
is right for one large user and takes hours for a thousand. Here one shared pool of real
texts is embedded once; every person's items are those texts (told apart by a note
number) with the pool's vector slightly perturbed (and the pool text's token vectors),
and a few turns each from a pool of turns embedded the same way. Rows go in by bulk
insert, a batch of people per transaction; the full-text rows follow by themselves
(PostgreSQL's generated `tsvector` column, SQLite's FTS5 triggers), and each person's
index generations are bumped in the same transaction, so no process serves an index
older than the rows.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from bench.speed import INSERT_BATCH
from bench.synthetic import TextSource
from conversations.corpus import TURNS
from conversations.models import Session, Turn
from memory.corpus import ITEMS
from memory.models import KnowledgeItem
from retrieval import late
from retrieval.documents import turn_context, turn_text
from retrieval.embedding import get_embedder, to_bytes
from retrieval.generations import generation_bump
from retrieval.tokens import MODEL_ID, encoder, pack

ITEM_POOL = 1000  # real item embeddings, shared by everyone
TURN_POOL = 100
TURNS_PER_PERSON = 4  # recall's conversation stage has something to find; no more
NOISE = 0.02  # per dimension: a perturbed copy keeps a cosine of about 0.9 to its text
PEOPLE_PER_COMMIT = 20


@dataclass(frozen=True)
class Pool:
    """Texts and their real embeddings (unit vectors), made once per seeding."""

    texts: list[str]
    vectors: np.ndarray
    tokens: list[bytes | None]  # each text's packed token vectors (late interaction)


def _tokens(texts: list[str]) -> list[bytes | None]:
    if not late.enabled():
        return [None] * len(texts)
    return [pack(vectors) for vectors in encoder().encode(texts)]


def pools(source: TextSource) -> tuple[Pool, Pool]:
    """The item pool (texts without their note number) and the turn pool (as documents)."""
    embedder = get_embedder()
    items = [source.item(n).rsplit(" (note ", 1)[0] for n in range(ITEM_POOL)]
    turns = [source.turn(n) for n in range(TURN_POOL)]
    docs = [
        turn_text(speaker="", role="user", content=text, context_text=_context(turns, n))
        for n, text in enumerate(turns)
    ]
    return (
        Pool(items, embedder.embed(items), _tokens(items)),
        Pool(turns, embedder.embed(docs), _tokens(docs)),
    )


def _context(texts: list[str], n: int) -> str:
    return "" if n % TURNS_PER_PERSON == 0 else turn_context(texts[n - 1])


def _perturbed(pool: Pool, picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    noise = rng.standard_normal((len(picks), pool.vectors.shape[1]), dtype=np.float32)
    vectors = pool.vectors[picks] + NOISE * noise
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def seed_people(
    people: list, items: int, rng: np.random.Generator, out: Callable[[str], None]
) -> int:
    """Give each of `people` at least `items` active items and TURNS_PER_PERSON turns;
    returns how many items were added."""
    ids = [person.pk for person in people]
    active = KnowledgeItem.objects.filter(forgotten_at__isnull=True, superseded_by__isnull=True)
    have = _counts(active.filter(owner_id__in=ids))
    turns_have = _counts(Turn.objects.filter(owner_id__in=ids))
    todo = [p for p in people if have.get(p.pk, 0) < items or turns_have.get(p.pk, 0) == 0]
    if not todo:
        return 0
    item_pool, turn_pool = pools(TextSource(8))
    added = 0
    for start in range(0, len(todo), PEOPLE_PER_COMMIT):
        batch = todo[start : start + PEOPLE_PER_COMMIT]
        with transaction.atomic():
            for person in batch:
                added += _items(person, items - have.get(person.pk, 0), item_pool, rng)
                if turns_have.get(person.pk, 0) == 0:
                    _turns(person, turn_pool, rng)
                generation_bump(ITEMS, person.pk)  # bulk rows bypass the services: say so
                generation_bump(TURNS, person.pk)
        out(f"  bulk: {start + len(batch)}/{len(todo)} people ({added} new items)")
    if connection.vendor == "postgresql":  # planner statistics, as autovacuum would
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE memory_knowledgeitem")
            cursor.execute("ANALYZE conversations_turn")
    return added


def _counts(queryset) -> dict[int, int]:
    rows = queryset.values("owner_id").annotate(n=Count("id")).values_list("owner_id", "n")
    return dict(rows)


def _items(person, size: int, pool: Pool, rng: np.random.Generator) -> int:
    if size <= 0:
        return 0
    model_id, now = get_embedder().model_id, timezone.now()
    picks = rng.integers(0, len(pool.texts), size)
    vectors = _perturbed(pool, picks, rng)
    first = rng.integers(10**6)  # note numbers: distinct rows, however often seeded
    rows = [
        KnowledgeItem(
            owner=person,
            content=f"{pool.texts[pick]} (note {first + n})",
            category="fact",
            source="tool",
            created_at=now - timedelta(minutes=size - n),
            embedding=to_bytes(vectors[n]),
            embedding_model=model_id,
            tokens=pool.tokens[pick],
            tokens_model=MODEL_ID if pool.tokens[pick] else "",
        )
        for n, pick in enumerate(picks)
    ]
    KnowledgeItem.objects.bulk_create(rows, batch_size=INSERT_BATCH)
    return size


def _turns(person, pool: Pool, rng: np.random.Generator) -> None:
    model_id, now = get_embedder().model_id, timezone.now()
    session, _ = Session.objects.get_or_create(owner=person, session_id="bench-seed")
    first = TURNS_PER_PERSON * int(rng.integers(0, len(pool.texts) // TURNS_PER_PERSON))
    picks = np.arange(first, first + TURNS_PER_PERSON)
    vectors = _perturbed(pool, picks, rng)
    Turn.objects.bulk_create(
        Turn(
            owner=person,
            session=session,
            role="user",
            content=pool.texts[pick],
            context_text=_context(pool.texts, int(pick)),
            timestamp=now - timedelta(minutes=TURNS_PER_PERSON - n),
            embedding=to_bytes(vectors[n]),
            embedding_model=model_id,
            tokens=pool.tokens[pick],
            tokens_model=MODEL_ID if pool.tokens[pick] else "",
        )
        for n, pick in enumerate(picks)
    )
