"""Seed benchmark users through the services (the one write path), in bulk."""

import random
import time

import numpy as np
from django.contrib.auth import get_user_model

from accounts.services import token_create
from bench.speed import seed as bulk_seed
from bench.synthetic import TextSource
from memory.models import KnowledgeItem
from memory.services import memory_create_many

VOCAB = (
    "coffee tea hiking berlin lisbon python rust piano guitar sister brother manager "
    "project deadline garden cat dog allergy peanut vegan running marathon book novel "
    "meeting budget travel flight hotel doctor dentist birthday anniversary recipe pasta "
    "sushi chess football tennis yoga meditation podcast movie series camera bicycle "
    "apartment rent salary promotion conference paper review launch release bug feature"
).split()
BATCH = 500
BULK_POOL = 200  # real embeddings per user; the rest are perturbed copies


def words(rng: random.Random, n: int) -> str:
    """A sentence of vocabulary words plus one rare word, so rows rarely repeat."""
    picked = rng.sample(VOCAB, n)
    return " ".join(picked) + f" zx{rng.randrange(10**9):x}"


def seed(*, users: int, items: int, prefix: str, out=print, bulk: bool = False) -> dict[str, str]:
    """Users `prefix0..` with at least `items` active items each; one new token each.

    `bulk` inserts rows directly (as `memory_bench` does: real embeddings of 200 texts
    plus perturbed copies, and as many turns), for the large sizes the services would take
    an hour to write; the load itself always goes through the API.
    """
    User = get_user_model()
    rng = random.Random(8)
    source, vector_rng = TextSource(8), np.random.default_rng(8)
    tokens: dict[str, str] = {}
    started, created = time.monotonic(), 0
    for n in range(users):
        user, _ = User.objects.get_or_create(username=f"{prefix}{n}")
        have = KnowledgeItem.objects.for_user(user).count()
        if bulk and have < items:
            bulk_seed(user, items - have, source, min(BULK_POOL, items - have), vector_rng)
            created += items - have
            have = items
        while have < items:
            size = min(BATCH, items - have)
            batch = [{"content": "User " + words(rng, 8)} for _ in range(size)]
            have += len(memory_create_many(user=user, items=batch))
            created += size
        tokens[user.username] = token_create(user=user, name="load-bench")[1]
        if n % max(1, users // 10) == 0:
            out(f"  seeded {n + 1}/{users} users ({created} new items)")
    elapsed = time.monotonic() - started
    rate = created / elapsed if elapsed else 0.0
    out(f"Seeding: {created} new items in {elapsed:.1f} s ({rate:.0f} items/s)")
    return tokens
