"""Seed benchmark users through the services (the one write path), or in bulk
(bench/loadbench/bulk.py) for the large sizes."""

import random
import time

import numpy as np
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

from accounts.services import token_create
from bench.loadbench.bulk import seed_people
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create_many
from retrieval import snapshots
from retrieval.indexes import index_cache

VOCAB = (
    "coffee tea hiking berlin lisbon python rust piano guitar sister brother manager "
    "project deadline garden cat dog allergy peanut vegan running marathon book novel "
    "meeting budget travel flight hotel doctor dentist birthday anniversary recipe pasta "
    "sushi chess football tennis yoga meditation podcast movie series camera bicycle "
    "apartment rent salary promotion conference paper review launch release bug feature"
).split()
BATCH = 500


def words(rng: random.Random, n: int) -> str:
    """A sentence of vocabulary words plus one rare word, so rows rarely repeat."""
    picked = rng.sample(VOCAB, n)
    return " ".join(picked) + f" zx{rng.randrange(10**9):x}"


def seed(*, users: int, items: int, prefix: str, out=print, bulk: bool = False) -> dict[str, str]:
    """Users `prefix0..` with at least `items` active items each; one new token each.

    `bulk` inserts rows directly (bench/loadbench/bulk.py: one shared pool of real
    embeddings, perturbed per person, and a few turns each), for the sizes the services
    would take hours to write; the load itself always goes through the API.
    """
    rng = random.Random(8)
    started, created = time.monotonic(), 0
    people = _people([f"{prefix}{n}" for n in range(users)])
    if bulk:
        created = seed_people(people, items, np.random.default_rng(8), out)
    tokens: dict[str, str] = {}
    for n, user in enumerate(people):
        if not bulk:
            created += _fill(user, items, rng)
        tokens[user.username] = token_create(user=user, name="load-bench")[1]
        if n % max(1, users // 10) == 0:
            out(f"  seeded {n + 1}/{users} users ({created} new items)")
    elapsed = time.monotonic() - started
    rate = created / elapsed if elapsed else 0.0
    out(f"Seeding: {created} new items in {elapsed:.1f} s ({rate:.0f} items/s)")
    return tokens


def _fill(user, items: int, rng: random.Random) -> int:
    """Items through the services until `user` has `items`; returns how many were added."""
    have = before = KnowledgeItem.objects.for_user(user).count()
    while have < items:
        batch = [{"content": "User " + words(rng, 8)} for _ in range(min(BATCH, items - have))]
        have += len(memory_create_many(user=user, items=batch))
    return have - before


def _people(names: list[str]) -> list:
    """The users named, in order; the missing ones are created in one statement, with
    no usable password."""
    User = get_user_model()
    found = set(User.objects.filter(username__in=names).values_list("username", flat=True))
    missing = [User(username=n, password=make_password(None)) for n in names if n not in found]
    User.objects.bulk_create(missing, batch_size=500)
    by_name = User.objects.in_bulk(names, field_name="username")
    return [by_name[name] for name in names]


def warm(names: list[str], out=print) -> None:
    """One recall per person here, so each has an index snapshot and a word sample on
    disk before the load, as someone who used the server before: every routing then
    starts from the same disk, not only the one that runs second."""
    started = time.monotonic()
    for user in get_user_model().objects.filter(username__in=names).iterator():
        recall(user=user, query="What does the user prefer?", judge=False)
    snapshots.flush()
    index_cache().clear()  # this process serves nothing; the memory is the servers'
    out(f"Warm-up: {len(names)} people recalled once in {time.monotonic() - started:.1f} s")
