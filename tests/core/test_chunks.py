"""Bulk writes in short transactions: chunks sized by the time they hold the lock."""

from types import SimpleNamespace

import pytest
from django.db import transaction

from core import chunks

pytestmark = pytest.mark.django_db(transaction=True)  # real commits: on_commit runs


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The chunks' clock, moved by hand: writes take no time unless a test says so."""
    now = [0.0]
    monkeypatch.setattr(chunks, "time", SimpleNamespace(monotonic=lambda: now[0], sleep=id))
    return now


def _slow_after_commit(clock: list[float], seen: list[int]):
    def write(chunk: list[int]) -> list[int]:
        seen.append(len(chunk))
        transaction.on_commit(lambda: clock.__setitem__(0, clock[0] + 2.0))  # embedding
        return chunk

    return write


def test_work_after_each_commit_does_not_shrink_the_chunks_of_a_batch(clock):
    seen: list[int] = []
    out = chunks.write_in_chunks(
        list(range(700)), _slow_after_commit(clock, seen), first=50, most=250
    )
    assert out == list(range(700))
    assert seen == [50, 100, 200, 250, 100]


def test_work_after_each_commit_does_not_shrink_the_chunks_of_a_repeated_step(clock):
    left = [700]
    seen: list[int] = []
    write = _slow_after_commit(clock, seen)

    def step(size: int) -> int:
        done = min(size, left[0])
        left[0] -= done
        return len(write(list(range(done))))

    assert chunks.repeat_in_chunks(step, first=50, most=250) == 700
    assert seen == [50, 100, 200, 250, 100, 0]


def test_a_chunk_that_holds_the_lock_too_long_makes_the_next_one_smaller(clock):
    seen: list[int] = []

    def write(chunk: list[int]) -> list[int]:
        seen.append(len(chunk))
        clock[0] += 0.4  # inside the transaction: four times the target
        return chunk

    chunks.write_in_chunks(list(range(400)), write, first=100, most=250)
    assert seen[:3] == [100, 25, 6]
