"""Chroma's side of the comparison, run by the throwaway venv's Python (see `runner`).

`python -m bench.chroma.chroma_side WORKLOAD OUT DATA_DIR BATCH QUERIES TOP_K`: Chroma
(persistent client, in-process) with an embedding function that calls this project's
local embedder, on the same texts, batches and questions as `bench.chroma.ours`. Only
the embedder is imported from the project (no Django set-up).
"""

import json
import sys
import time
from pathlib import Path

from bench.chroma.timing import (
    WARM_UP,
    batches,
    folder_bytes,
    one_text_times,
    summary,
    timed_ms,
)
from bench.chroma.workload import Workload


def main(
    workload_path: str, out_path: str, data_dir: str, batch: int, queries: int, top_k: int
) -> None:
    import chromadb
    from chromadb.config import Settings

    workload = Workload.load(Path(workload_path))
    embedder = workload.embedder()

    class OurEmbedder(chromadb.EmbeddingFunction):
        def __init__(self) -> None:
            pass

        def __call__(self, input):  # noqa: A002 (Chroma's parameter name)
            return list(embedder.embed(list(input)))

        @staticmethod
        def name() -> str:
            return "gaia-local-embedder"

    client = chromadb.PersistentClient(path=data_dir, settings=Settings(anonymized_telemetry=False))
    collection = client.create_collection(
        "bench", embedding_function=OurEmbedder(), metadata={"hnsw:space": "cosine"}
    )
    asked = workload.questions[: WARM_UP + queries]
    one_text = one_text_times(embedder.embed, asked)
    started = time.perf_counter()
    offset = 0
    for chunk in batches(workload, batch):
        collection.add(
            ids=[str(offset + n) for n in range(len(chunk))],
            documents=[t for t, _ in chunk],
            metadatas=[{"context": c} for _, c in chunk],
        )
        offset += len(chunk)
    ingest_s = time.perf_counter() - started

    def ask(text: str) -> None:
        collection.query(query_texts=[text], n_results=top_k)

    for text in asked[:WARM_UP]:
        ask(text)
    latencies = timed_ms([lambda t=t: ask(t) for t in asked[WARM_UP:]])
    result = summary(ingest_s, len(workload.items), latencies, one_text)
    result["version"] = chromadb.__version__
    result["disk_bytes"] = folder_bytes(data_dir) / len(workload.items)
    Path(out_path).write_text(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:4], *(int(arg) for arg in sys.argv[4:7]))
