"""Extraction quality with the configured model, on LoCoMo-format conversations.

For each session: a throwaway user; the session's turns logged in order through the
real services (every speaker's turns as user turns with the speaker's name, so both
people's facts can be learned, as the gold observations cover both); each pending turn
extracted through the real job (`extract_turn`: recall, prompt, model, tolerant reading,
operations), timed. The memories active afterwards are the predictions; the session's
observations are the gold facts. A prediction matches when a gold fact is at least
`threshold` cosine away with the configured embedder, and the other way round:
precision = share of predictions matching some gold fact, recall = share of gold facts
matched by some prediction (not one-to-one: models split and merge facts differently).
"""

import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.contrib.auth import get_user_model

from bench.locomo_data import session_time
from bench.locomo_data import sessions as session_numbers
from conversations.models import Turn
from conversations.services.recording import turns_append_many
from learning.extraction import extract_turn
from learning.receivers import extraction_queueing_paused
from memory.models import KnowledgeItem
from retrieval.embedding import get_embedder

THRESHOLD = 0.6
OPERATIONS = ("added", "updated", "deleted", "unchanged", "skipped", "refused")


@dataclass
class Tally:
    """Counts of one file (or all): sessions, turns, predictions, gold facts, matches."""

    sessions: int = 0
    turns: int = 0
    predicted: int = 0
    gold: int = 0
    predicted_matched: int = 0
    gold_matched: int = 0
    operations: int = 0
    seconds: float = 0.0
    outcomes: Counter = field(default_factory=Counter)  # done / partial / failed / ...
    failures: Counter = field(default_factory=Counter)  # by reason kind

    def add(self, other: "Tally") -> None:
        for name in (
            "sessions",
            "turns",
            "predicted",
            "gold",
            "predicted_matched",
            "gold_matched",
            "operations",
            "seconds",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.outcomes.update(other.outcomes)
        self.failures.update(other.failures)

    def row(self, label: str) -> str:
        precision = self.predicted_matched / self.predicted if self.predicted else 0.0
        recall = self.gold_matched / self.gold if self.gold else 0.0
        per_turn = self.operations / self.turns if self.turns else 0.0
        seconds = self.seconds / self.turns if self.turns else 0.0
        return (
            f"| {label} | {self.sessions} | {self.turns} | {self.predicted} | {self.gold} "
            f"| {precision:.3f} | {recall:.3f} | {per_turn:.2f} | {seconds:.2f} |"
        )


def gold_facts(data: dict, number: int) -> list[str]:
    facts = []
    for entries in (data.get(f"session_{number}_observation") or {}).values():
        facts += [str(entry[0]) for entry in entries if entry]
    return facts


def matched(predicted: list[str], gold: list[str], threshold: float) -> tuple[int, int]:
    """(predictions matching some gold fact, gold facts matched by some prediction)."""
    if not predicted or not gold:
        return 0, 0
    vectors = get_embedder().embed(predicted + gold)
    similarity = vectors[: len(predicted)] @ vectors[len(predicted) :].T
    hits = similarity >= threshold
    return int(np.any(hits, axis=1).sum()), int(np.any(hits, axis=0).sum())


def _reason(result: dict[str, Any]) -> str:
    return str(result.get("reason", "unknown")).split(":", 1)[0]


def evaluate_session(data: dict, number: int, *, threshold: float, keep: bool) -> Tally:
    tally = Tally(sessions=1)
    user = get_user_model().objects.create_user(f"eval-{uuid.uuid4().hex[:12]}")
    try:
        when = session_time(data.get(f"session_{number}_date_time", ""))
        entries = data[f"session_{number}"]
        with extraction_queueing_paused():
            turns = turns_append_many(
                user=user,
                turns=[
                    {
                        "session_id": f"session_{number}",
                        "role": "user",
                        "speaker": entry.get("speaker", ""),
                        "content": entry.get("text", ""),
                        "timestamp": when,
                    }
                    for entry in entries
                    if str(entry.get("text", "")).strip()
                ],
            )
        for turn in turns:
            if turn.extraction_status != "pending":
                continue  # too short to be worth extracting
            started = time.perf_counter()
            result = extract_turn(turn_id=turn.pk)
            tally.seconds += time.perf_counter() - started
            tally.turns += 1
            tally.operations += sum(int(result.get(name, 0)) for name in OPERATIONS)
            status = Turn.objects.get(pk=turn.pk).extraction_status
            tally.outcomes[status] += 1
            if status == "failed" or result.get("status") in ("retry later", "waiting"):
                tally.failures[_reason(result)] += 1
            if status == "partial":
                tally.failures["operations refused"] += int(result.get("refused", 0))
        predicted = list(
            KnowledgeItem.objects.for_user(user).active().values_list("content", flat=True)
        )
        gold = gold_facts(data, number)
        tally.predicted, tally.gold = len(predicted), len(gold)
        tally.predicted_matched, tally.gold_matched = matched(predicted, gold, threshold)
    finally:
        if not keep:
            user.delete()
    return tally


def conversation_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.json")) if path.is_dir() else [path]
    missing = [str(p) for p in files if not p.is_file()]
    if missing or not files:
        raise FileNotFoundError(f"No LoCoMo conversation at: {', '.join(missing) or paths}")
    return files


def evaluate_files(
    paths: list[Path],
    *,
    threshold: float = THRESHOLD,
    sessions: int = 0,
    keep: bool = False,
    progress=None,
) -> list[tuple[str, Tally]]:
    """(label, tally) per file, then ("overall", the sum)."""
    rows: list[tuple[str, Tally]] = []
    total = Tally()
    for path in conversation_files(paths):
        data = json.loads(path.read_text())
        tally = Tally()
        numbers = session_numbers(data)[: sessions or None]
        for index, number in enumerate(numbers, 1):
            if progress:
                progress(f"{path.name}: session {number} ({index}/{len(numbers)}) ...")
            tally.add(evaluate_session(data, number, threshold=threshold, keep=keep))
        rows.append((path.name, tally))
        total.add(tally)
    rows.append(("overall", total))
    return rows


def report(rows: list[tuple[str, Tally]]) -> list[str]:
    lines = [
        "| file | sessions | turns | facts | gold | precision | recall | ops/turn | s/turn |",
        "|---|---|---|---|---|---|---|---|---|",
        *(tally.row(label) for label, tally in rows),
    ]
    total = rows[-1][1]
    outcomes = ", ".join(f"{n} {state}" for state, n in sorted(total.outcomes.items()))
    failures = ", ".join(f"{reason} {n}" for reason, n in total.failures.most_common())
    lines.append(f"turns: {outcomes or 'none extracted'}")
    lines.append(f"failures by reason: {failures or 'none'}")
    return lines
