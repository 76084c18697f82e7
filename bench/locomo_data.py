"""Reading LoCoMo-format conversations and loading them into a user through the services.

A conversation file holds `session_N` lists of turns (speaker, dia_id, text) with their
`session_N_date_time`, `session_N_observation` facts per speaker with the dia ids they were
drawn from, and `qa` questions with their evidence dia ids and category.
"""

import json
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conversations.services.recording import turns_append_many
from memory.services import memory_create

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def session_time(text: str) -> datetime | None:
    """LoCoMo's "1:56 pm on 8 May, 2023" as an aware datetime (None if unreadable)."""
    for pattern in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text.strip(), pattern).replace(tzinfo=UTC)
        except (ValueError, AttributeError):
            continue
    return None


def sessions(data: dict) -> list[int]:
    numbers = [
        int(key.split("_")[1])
        for key, value in data.items()
        if key.startswith("session_") and key.count("_") == 1 and isinstance(value, list)
    ]
    return sorted(numbers)


def load_conversation(
    user: Any, data: dict, *, link: str = "all"
) -> tuple[dict[int, str], dict[int, set[str]]]:
    """Store the turns and observations; returns turn id -> dia id, item id -> dia ids.

    `link`: which observations keep their evidence turn as `source_turn` ("all", "none",
    or "half": every other one, as when extraction and an agent both store facts).
    """
    speaker_a = data.get("speaker_a", "")
    turn_dia: dict[int, str] = {}
    dia_turn: dict[str, Any] = {}
    for number in sessions(data):
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
    index = 0
    for number in sessions(data):
        for speaker, facts in (data.get(f"session_{number}_observation") or {}).items():
            for fact, dia in facts:
                dias = dia if isinstance(dia, list) else [dia]
                linked = link == "all" or (link == "half" and index % 2 == 0)
                index += 1
                item = memory_create(
                    user=user,
                    content=fact,
                    category="fact",
                    entity=f"person:{speaker.lower()}",
                    # What an agent passes when it remembers what a logged turn taught it.
                    source_turn=next((dia_turn[d] for d in dias if d in dia_turn), None)
                    if linked
                    else None,
                )
                item_dias[item.pk].update(dias)
    return turn_dia, item_dias


def dia_places(data: dict) -> dict[str, tuple[str, str]]:
    """dia id -> (its session id, the entity of its speaker), as `load_conversation` stores them."""
    return {
        entry["dia_id"]: (f"session_{number}", f"person:{entry['speaker'].lower()}")
        for number in sessions(data)
        for entry in data[f"session_{number}"]
    }


def evidence(question: dict) -> set[str]:
    return {part.strip() for ref in question.get("evidence", []) for part in str(ref).split(";")}


def questions(data: dict) -> Iterator[tuple[str, str, set[str]]]:
    for question in data.get("qa", []):
        if question.get("category") in CATEGORIES and evidence(question):
            yield CATEGORIES[question["category"]], str(question["question"]), evidence(question)


class NotAConversation(ValueError):
    """A file in the folder that is not a LoCoMo-format conversation."""


def read_conversation(path: Path) -> dict:
    """One LoCoMo-format conversation file (NotAConversation names the file and the fault)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise NotAConversation(f"{path.name}: not JSON ({error}).") from error
    if not isinstance(data, dict) or not sessions(data):
        raise NotAConversation(f"{path.name}: not a LoCoMo conversation (no session_N list).")
    return data
