"""The query's embedding is made on a background thread while recall runs its SQL."""

import threading

import numpy as np

from retrieval import query
from retrieval.embedding import EmbedderError


class Embedder:
    model_id = "test-model"

    def __init__(self, *, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.fail = fail
        self.go = threading.Event()
        self.went_on: list[bool] = []

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def embed(self, texts: list[str]) -> np.ndarray:
        # The caller of prefetch goes on (and sets `go`) before this embedding finishes.
        self.went_on.append(self.go.wait(30))
        self.calls += texts
        if self.fail:
            raise EmbedderError("model server down")
        return np.full((len(texts), 4), float(len(texts[0])), dtype=np.float32)


def test_a_prefetched_query_is_embedded_once_while_the_caller_goes_on(monkeypatch):
    embedder = Embedder()
    monkeypatch.setattr(query, "get_embedder", lambda: embedder)
    query.prefetch("where does Maya live")
    query.prefetch("where does Maya live")  # already under way: not asked again
    embedder.go.set()  # the caller's own work, done while the model embeds
    vector = query.query_vector("where does Maya live")
    assert embedder.went_on == [True]
    assert embedder.calls == ["where does Maya live"]
    assert vector.tolist() == [20.0] * 4
    assert query.query_vector("where does Maya live").tolist() == [20.0] * 4  # cached
    assert embedder.calls == ["where does Maya live"]


def test_a_failed_prefetch_leaves_recall_to_the_keywords(monkeypatch):
    embedder = Embedder(fail=True)
    embedder.go.set()
    monkeypatch.setattr(query, "get_embedder", lambda: embedder)
    query.prefetch("peanuts")
    assert query.query_vector("peanuts") is None
    assert query.query_vector("peanuts") is None  # asked again, not cached as a result
    assert embedder.calls == ["peanuts", "peanuts"]
