"""What the relevance judge costs inside a recall, for `memory_bench`.

For each question: the candidates the judge would read (the fused head, asked with the
judge off), the judge alone on exactly those (its cache cleared, as for a new question),
then the judged recall itself (cache cleared again). The rest of a judged recall is what
it takes beyond the judge: the fused search and the reads around it.
"""

import time
from typing import Any

from django.conf import settings

from memory.recall import recall
from retrieval import judge


def time_judged(user: Any, questions: list[str]) -> dict[str, list[float]]:
    """Milliseconds per question: "judge" (the cross-encoder alone on the candidates it
    sees) and "judged" (the whole recall with the judge), and "pairs" judged."""
    shown = settings.GAIA_JUDGE_CANDIDATES
    model = judge.local_judge()
    out: dict[str, list[float]] = {"judge": [], "judged": [], "pairs": []}
    for question in questions:
        head = recall(user=user, query=question, top_k=shown, min_relevance=0, judge=False)
        texts = [hit.item.content for hit in head]
        model.clear_cache()
        started = time.perf_counter()
        model.logits(question, texts)
        out["judge"].append((time.perf_counter() - started) * 1000)
        model.clear_cache()
        started = time.perf_counter()
        recall(user=user, query=question)
        out["judged"].append((time.perf_counter() - started) * 1000)
        out["pairs"].append(float(len(texts)))
    return out
