"""Any OpenAI-compatible `/v1/embeddings` server (Lemonade, Ollama, llama.cpp, vLLM, OpenAI)."""

import threading
import time

import numpy as np

from core.outgoing import ModelServerError, endpoint, post_json
from retrieval.embedding.base import EmbedderError, checked

# After a failure, calls are refused for this long so a down server does not add its
# whole deadline to every search; writes fall back to the task queue meanwhile.
BREAKER_SECONDS = 30.0


class OpenAIEmbedder:
    """A server's embeddings: questions and stored texts are sent alike (a server that
    wants an instruction for questions takes it in its own configuration)."""

    is_local = False

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dim: int,
        api_key: str = "",
        timeout: float = 10.0,
        batch_size: int = 32,
    ) -> None:
        if not base_url or not model:
            raise EmbedderError(
                "GAIA_EMBEDDER=openai needs GAIA_EMBED_URL and GAIA_EMBED_MODEL. "
                "Fix: set both, or GAIA_EMBEDDER=local."
            )
        self.url = endpoint(base_url, "/v1/embeddings")
        self.model = model
        self.dim = dim
        self.model_id = f"openai:{model}:{dim}"
        self.api_key = api_key
        self.timeout = timeout
        self.batch_size = max(1, batch_size)
        self._down_until = 0.0
        self.last_error = ""
        self._lock = threading.Lock()

    def available(self) -> bool:
        return time.monotonic() >= self._down_until

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed(texts)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self.available():
            raise EmbedderError(f"embedding server recently failed: {self.last_error}")
        parts = [
            self._request(texts[start : start + self.batch_size])
            for start in range(0, len(texts), self.batch_size)
        ]
        return np.concatenate(parts)

    def _request(self, texts: list[str]) -> np.ndarray:
        try:
            answer = post_json(
                self.url,
                {"model": self.model, "input": texts},
                api_key=self.api_key,
                deadline_seconds=self.timeout,
            )
            vectors = _vectors(answer, len(texts))
            result = checked(vectors, count=len(texts), dim=self.dim)
        except (ModelServerError, EmbedderError) as error:
            with self._lock:
                self.last_error = str(error)[:300]
                self._down_until = time.monotonic() + BREAKER_SECONDS
            raise EmbedderError(str(error)) from error
        with self._lock:
            self.last_error = ""
        return result


def _vectors(answer: object, count: int) -> np.ndarray:
    """Rows of the answer in input order; EmbedderError when the shape is not the protocol's."""
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise EmbedderError(f"expected {count} embeddings in 'data'")
    rows: list = [None] * count
    for position, entry in enumerate(data):
        if not isinstance(entry, dict) or not isinstance(entry.get("embedding"), list):
            raise EmbedderError("each 'data' entry needs an 'embedding' list")
        index = entry.get("index", position)
        if not isinstance(index, int) or not 0 <= index < count or rows[index] is not None:
            raise EmbedderError("bad or repeated 'index' in embeddings answer")
        rows[index] = entry["embedding"]
    lengths = {len(row) for row in rows}
    if len(lengths) != 1:
        raise EmbedderError("embeddings of different lengths in one answer")
    try:
        return np.array(rows, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise EmbedderError(f"non-numeric embedding values: {error}") from error
