"""What a process caches of its owners' rows and of the model servers, cleared together.

Tests clear it between tests (owner ids and generations come back after a rolled-back
test), and `memory_eval` between rankings run under other settings.
"""

from retrieval import indexes, judge, keyword, late_writes, query, rerank, snapshots, vocabulary


def clear_process_caches() -> None:
    """Word counts, vocabularies, vector indexes, query vectors, model-server failures;
    snapshot and token-vector writes still queued are finished first (the files and
    rows stay: they are on disk, not in the process)."""
    snapshots.flush()
    late_writes.flush()  # token vectors of rows written earlier are stored first
    snapshots.reset_counts()
    vocabulary.clear_cache()
    keyword.clear_caches()  # with the owners' word counts (termstats)
    indexes.index_cache().clear()
    query.clear_cache()
    rerank.reset()  # a reranker failure remembered earlier
    judge.reset()  # a judge that failed to load earlier
