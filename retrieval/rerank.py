"""A remote relevance judge: any HTTP reranker speaking the common `/v1/rerank` shape.

Request {model, query, documents, top_n}; answer {results: [{index, relevance_score}]}.
Configured (GAIA_RERANK_URL), it replaces the local cross-encoder (`retrieval.judge`).
Down or answering nonsense: None, and the fused order stands (logged, never raised).
"""

import logging
import time

from django.conf import settings

from core.outgoing import ModelServerError, endpoint, post_json

log = logging.getLogger(__name__)
BREAKER_SECONDS = 30.0
_down_until = 0.0


def configured() -> bool:
    return bool(settings.GAIA_RERANK_URL)


def rerank_scores(query: str, documents: list[str]) -> list[float] | None:
    """A relevance score per document (higher is better), or None to keep the fused order."""
    global _down_until
    if not configured() or not documents or time.monotonic() < _down_until:
        return None
    try:
        answer = post_json(
            endpoint(settings.GAIA_RERANK_URL, "/v1/rerank"),
            {
                "model": settings.GAIA_RERANK_MODEL,
                "query": query,
                "documents": documents,
                "top_n": len(documents),
            },
            api_key=settings.GAIA_RERANK_API_KEY,
            deadline_seconds=settings.GAIA_RERANK_TIMEOUT,
        )
        return _scores(answer, len(documents))
    except (ModelServerError, ValueError) as error:
        _down_until = time.monotonic() + BREAKER_SECONDS
        log.warning("reranker unavailable, keeping fused order: %s", error)
        return None


def _scores(answer: object, count: int) -> list[float]:
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise ValueError("rerank answer has no 'results' list")
    scores: list[float | None] = [None] * count
    for entry in results:
        index = entry.get("index") if isinstance(entry, dict) else None
        score = entry.get("relevance_score") if isinstance(entry, dict) else None
        if not isinstance(index, int) or not 0 <= index < count:
            raise ValueError("rerank result with a bad 'index'")
        if not isinstance(score, (int, float)) or score != score:
            raise ValueError("rerank result with a bad 'relevance_score'")
        scores[index] = float(score)
    # Documents the server left out (top_n ignored) rank after every scored one.
    floor = min((s for s in scores if s is not None), default=0.0) - 1.0
    return [floor if s is None else s for s in scores]


def reset() -> None:
    """Forget a recent failure (tests, or after reconfiguring)."""
    global _down_until
    _down_until = 0.0
