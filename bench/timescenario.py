"""Time as people say it: conversations and memories dated relative to now, asked about
with "yesterday", "about a week ago", "two months ago" (bench/data/time-*.json).

A time scenario holds sessions (each `days_ago` at a local `hour`, or `hours_ago`, in the
scenario's `timezone`), memories dated the same way, questions over the conversations
(right when the first turn found is one of the named `sessions`) and questions over the
memories (right when the first item is one of the `answers`), and questions placed in a time
that holds nothing they ask about (`nonsense_questions`, over the memories: right when
nothing comes back). The same topic comes up at
several times (the dentist in four sessions), so only the time the question names tells
the answers apart. Everything is stored in a throwaway user whose time zone is the
scenario's, and asked with the default settings through `search_turns` and `recall`.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from accounts.services import user_settings_update
from bench.markdown import markdown_table
from bench.scenario import NotAnAccount, read_scenario, throwaway_user
from conversations.search import search_turns
from conversations.services.recording import turns_append_many
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create
from retrieval import keyword

REQUIRED = ("sessions", "memories", "turn_questions", "memory_questions")


@dataclass
class TimeScore:
    name: str
    turns: int = 0
    turns_top1: int = 0
    memories: int = 0
    memories_top1: int = 0
    read: int = 0  # questions whose time was read (time_read in the answer)
    nonsense: int = 0
    nonsense_answered: int = 0  # of them, those that got a hit
    misses: list[str] = field(default_factory=list)


def read_time_scenario(path: Path) -> dict[str, Any]:
    data = read_scenario(path, REQUIRED)
    sessions = {s.get("session_id") for s in data["sessions"] if isinstance(s, dict)}
    for question in data["turn_questions"]:
        if not set(question.get("sessions") or []) <= sessions or not question.get("sessions"):
            raise NotAnAccount(f"{path}: {question.get('question')!r} names unknown sessions.")
    contents = {m.get("content") for m in data["memories"] if isinstance(m, dict)}
    for question in data["memory_questions"]:
        if not question.get("answers") or not set(question["answers"]) <= contents:
            raise NotAnAccount(f"{path}: {question.get('question')!r} has answers not stored.")
    return data


def _when(entry: dict[str, Any], now: datetime, zone: ZoneInfo) -> datetime:
    """The moment an entry is dated: `hours_ago`, or `days_ago` at its local `hour`."""
    if "hours_ago" in entry:
        return now - timedelta(hours=float(entry["hours_ago"]))
    day = (now.astimezone(zone) - timedelta(days=int(entry["days_ago"]))).date()
    moment = datetime(day.year, day.month, day.day, int(entry.get("hour", 12)), tzinfo=zone)
    return min(moment, now - timedelta(minutes=5))


def evaluate_time(path: Path, data: dict[str, Any], *, keep: bool = False) -> TimeScore:
    score = TimeScore(path.stem)
    zone = ZoneInfo(data.get("timezone") or "UTC")
    now = timezone.now()
    with throwaway_user("time", keep=keep) as user:
        user_settings_update(user=user, timezone=str(zone))
        session_of: dict[int, str] = {}
        for session in data["sessions"]:
            start = _when(session, now, zone)
            turns = turns_append_many(
                user=user,
                turns=[
                    {
                        "session_id": session["session_id"],
                        "role": turn["role"],
                        "content": turn["content"],
                        "timestamp": start + timedelta(minutes=n),
                    }
                    for n, turn in enumerate(session["turns"])
                ],
            )
            session_of.update({turn.pk: session["session_id"] for turn in turns})
        for memory in data["memories"]:
            item = memory_create(
                user=user,
                content=memory["content"],
                category=memory.get("category") or "fact",
                source="user",
            )
            KnowledgeItem.objects.filter(pk=item.pk).update(created_at=_when(memory, now, zone))
        keyword.clear_caches()
        for question in data["turn_questions"]:
            hits = search_turns(user=user, query=question["question"])
            score.turns += 1
            score.read += hits.time_read is not None
            right = bool(hits) and session_of.get(hits[0].turn.pk) in question["sessions"]
            score.turns_top1 += right
            if not right:
                score.misses.append(f"turns: {question['question']}")
        for question in data["memory_questions"]:
            hits = recall(user=user, query=question["question"])
            score.memories += 1
            score.read += hits.time_read is not None
            right = bool(hits) and hits[0].item.content in question["answers"]
            score.memories_top1 += right
            if not right:
                score.misses.append(f"memories: {question['question']}")
        for question in data.get("nonsense_questions", []):
            score.nonsense += 1
            if recall(user=user, query=question):
                score.nonsense_answered += 1
                score.misses.append(f"nonsense: {question}")
    return score


TIME_HEAD = [
    "time scenario", "conversation questions", "right at rank 1", "memory questions",
    "right at rank 1", "all, right at rank 1", "time read", "nonsense with hits",
]  # fmt: skip


def time_table(scores: list[TimeScore]) -> list[str]:
    return markdown_table(TIME_HEAD, (_row(s) for s in scores))


def _row(s: TimeScore) -> list[Any]:
    asked = max(1, s.turns + s.memories)
    return [
        s.name, s.turns, f"{s.turns_top1 / max(1, s.turns):.3f}", s.memories,
        f"{s.memories_top1 / max(1, s.memories):.3f}",
        f"{(s.turns_top1 + s.memories_top1) / asked:.3f}", f"{s.read} of {s.turns + s.memories}",
        f"{s.nonsense_answered} of {s.nonsense}",
    ]  # fmt: skip
