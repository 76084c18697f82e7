"""The `Embedder` interface and the checks every implementation's output goes through."""

from typing import Protocol

import numpy as np


class EmbedderError(RuntimeError):
    """The embedder could not produce valid vectors (missing model, server down, bad output)."""


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of one model's space."""

    model_id: str  # stored with every vector, so spaces of different models never mix
    dim: int
    is_local: bool  # fast and in-process: writes embed in the request

    def embed(self, texts: list[str]) -> np.ndarray:
        """One row per stored text, shape (len(texts), dim), float32, unit length."""
        ...

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """One row per question, as the model wants questions read (an instruction in
        front for some models), in the same space as `embed`."""
        ...


def checked(vectors: np.ndarray, *, count: int, dim: int) -> np.ndarray:
    """Validate shape and values, then L2-normalise; raises EmbedderError on bad output.

    A wrong dimension, a NaN/inf or an all-zero vector would corrupt the index or make
    every cosine meaningless, so the whole batch is refused.
    """
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != count:
        raise EmbedderError(f"expected {count} vectors, got shape {vectors.shape}")
    if vectors.shape[1] != dim:
        raise EmbedderError(f"expected dimension {dim}, got {vectors.shape[1]}")
    if not np.isfinite(vectors).all():
        raise EmbedderError("embedding contains NaN or infinite values")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        raise EmbedderError("embedding contains an all-zero vector")
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def to_bytes(vector: np.ndarray) -> bytes:
    """Storage form of one vector: little-endian float32."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_bytes(blob: bytes | memoryview, dim: int) -> np.ndarray | None:
    """The stored vector, or None when its size does not match `dim` (another model)."""
    if blob is None or len(blob) != dim * 4:
        return None
    return np.frombuffer(bytes(blob), dtype="<f4")
