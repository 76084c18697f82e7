"""Retrieval recall@k on LoCoMo-format conversations, through the real services.

Each conversation goes into a throwaway user: every turn (speaker, text, session time)
via `turns_append_many`, every observation as a knowledge item via `memory_create`, linked
to the turn it was drawn from (its first dia id) as `source_turn`, as an agent does when it
remembers what a logged turn taught it.
Each answerable question (categories 1-4) is then asked of conversation search and of
recall; recall@k is the share of its evidence turns (dia ids) among the top k results.
"""

import json
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from conversations.search import search_turns
from conversations.services import turns_append_many
from memory.recall import recall
from memory.services import memory_create
from privacy.storage import fulltext_optimize

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)


@dataclass
class Scores:
    """Sums of recall per (target, category, k), and question counts per category."""

    sums: dict[tuple[str, str, int], float] = field(default_factory=lambda: defaultdict(float))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, category: str, target: str, k: int, value: float) -> None:
        for key in (category, "overall"):
            self.sums[(target, key, k)] += value

    def count(self, category: str) -> None:
        for key in (category, "overall"):
            self.counts[key] += 1

    def mean(self, target: str, category: str, k: int) -> float:
        n = self.counts.get(category, 0)
        return self.sums.get((target, category, k), 0.0) / n if n else 0.0


def session_time(text: str) -> datetime | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as an aware datetime (None if unreadable)."""
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), pattern).replace(tzinfo=UTC)
        except (ValueError, AttributeError):
            continue
    return None


def _sessions(data: dict) -> list[int]:
    numbers = [
        int(key.split("_")[1])
        for key, value in data.items()
        if key.startswith("session_") and key.count("_") == 1 and isinstance(value, list)
    ]
    return sorted(numbers)


def load_conversation(user: Any, data: dict) -> tuple[dict[int, str], dict[int, set[str]]]:
    """Store the turns and observations; returns turn id -> dia id, item id -> dia ids."""
    speaker_a = data.get("speaker_a", "")
    turn_dia: dict[int, str] = {}
    dia_turn: dict[str, Any] = {}
    for number in _sessions(data):
        when = session_time(data.get(f"session_{number}_date_time", ""))
        entries = data[f"session_{number}"]
        turns = turns_append_many(
            user=user,
            turns=[
                {
                    "session_id": f"session_{number}",
                    "role": "user" if entry["speaker"] == speaker_a else "assistant",
                    "speaker": entry["speaker"],
                    "content": entry["text"],
                    "timestamp": when,
                }
                for entry in entries
            ],
        )
        for turn, entry in zip(turns, entries, strict=True):
            turn_dia[turn.pk] = entry["dia_id"]
            dia_turn[entry["dia_id"]] = turn
    item_dias: dict[int, set[str]] = defaultdict(set)
    for number in _sessions(data):
        for speaker, facts in (data.get(f"session_{number}_observation") or {}).items():
            for fact, dia in facts:
                dias = dia if isinstance(dia, list) else [dia]
                item = memory_create(
                    user=user,
                    content=fact,
                    category="fact",
                    entity=f"person:{speaker.lower()}",
                    # What an agent passes when it remembers what a logged turn taught it.
                    source_turn=next((dia_turn[d] for d in dias if d in dia_turn), None),
                )
                item_dias[item.pk].update(dias)
    return turn_dia, item_dias


def evidence(question: dict) -> set[str]:
    return {part.strip() for ref in question.get("evidence", []) for part in str(ref).split(";")}


def evaluate_conversation(data: dict, scores: Scores, *, keep: bool = False) -> None:
    user = get_user_model().objects.create_user(f"locomo-{uuid.uuid4().hex[:12]}")
    try:
        turn_dia, item_dias = load_conversation(user, data)
        reachable = set().union(*item_dias.values()) if item_dias else set()
        for question in data.get("qa", []):
            if question.get("category") not in CATEGORIES or not evidence(question):
                continue
            wanted = evidence(question)
            category = CATEGORIES[question["category"]]
            scores.count(category)
            text = str(question["question"])
            turns = [turn_dia.get(h.turn.pk) for h in search_turns(user=user, query=text, top_k=10)]
            items = [
                item_dias.get(h.item.pk, set()) for h in recall(user=user, query=text, top_k=10)
            ]
            scores.add(category, "ceiling", 0, len(wanted & reachable) / len(wanted))
            for k in KS:
                scores.add(category, "turns", k, len(wanted & set(turns[:k])) / len(wanted))
                found = set().union(*items[:k]) if items[:k] else set()
                scores.add(category, "facts", k, len(wanted & found) / len(wanted))
    finally:
        if not keep:
            user.delete()


def evaluate_folder(folder: Path, *, keep: bool = False, progress=None) -> Scores:
    scores = Scores()
    files = sorted(folder.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"No *.json conversations in {folder}")
    for path in files:
        if progress:
            progress(f"loading and asking {path.name} ...")
        evaluate_conversation(json.loads(path.read_text()), scores, keep=keep)
    if not keep:
        fulltext_optimize()  # once: it rewrites the whole index, not only the eval's rows
    return scores


def table(scores: Scores) -> list[str]:
    rows = [
        "| category | questions | turns R@5 | turns R@10 | facts R@5 | facts R@10 "
        "| facts ceiling |",
        "|---|---|---|---|---|---|---|",
    ]
    for category in [*CATEGORIES.values(), "overall"]:
        if not scores.counts.get(category):
            continue
        cells = [f"{scores.mean(t, category, k):.3f}" for t in ("turns", "facts") for k in KS]
        ceiling = f"{scores.mean('ceiling', category, 0):.3f}"
        rows.append(f"| {category} | {scores.counts[category]} | {' | '.join(cells)} | {ceiling} |")
    return rows
