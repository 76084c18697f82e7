"""What each committed transaction wrote: for tests of bulk work done in short transactions."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections


@contextmanager
def rows_per_commit(model) -> Iterator[list[int]]:
    """Yields a list that receives, at each commit, how many rows of `model` that
    transaction added or removed (transactions that changed none are left out).

    Needs a test with real commits (`django_db(transaction=True)`).
    """
    sizes: list[int] = []
    last = [model._default_manager.count()]

    def counting_commit() -> None:
        now = model._default_manager.count()  # still inside the transaction
        if now != last[0]:
            sizes.append(abs(now - last[0]))
            last[0] = now
        commit()

    wrapper = connections["default"]  # the real wrapper, not the proxy
    commit = wrapper.commit
    had = "commit" in vars(wrapper)
    wrapper.commit = counting_commit
    try:
        yield sizes
    finally:
        if had:
            wrapper.commit = commit
        else:
            del wrapper.commit
