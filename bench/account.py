"""Recall on one person's account: memories told by the person, questions in an agent's words.

An account file (bench/data/account-*.json) holds about 200 memories of one made-up person
across life and work, questions with the memories that answer them, questions about
nothing they ever said, and broad questions ("What do you know about me?"). Everything is
stored with `memory_create` in a throwaway user and asked through `recall` with the
default settings, as an agent would: a question is right at rank 1 when its first hit is
one of its answers, in the top 5 when any of its first five is; a nonsense question should
get no hit, a broad one some.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.byname import by_name
from bench.markdown import markdown_table
from bench.scenario import NotAnAccount, memories_tell, read_scenario, throwaway_user
from memory import holder
from memory.recall import recall
from retrieval import keyword

REQUIRED = ("memories", "questions", "nonsense_questions")


@dataclass
class AccountScore:
    name: str
    questions: int = 0
    top1: int = 0
    top5: int = 0
    nonsense: int = 0
    nonsense_hits: int = 0  # hits over all nonsense questions
    nonsense_answered: int = 0  # nonsense questions that got any hit
    broad: int = 0
    broad_answered: int = 0
    misses: list[str] = field(default_factory=list)  # questions not right at rank 1
    # Stored by name (`bench.byname`): the questions asked naming the person, and the
    # nonsense naming them.
    named: int = 0
    named_top1: int = 0
    named_top5: int = 0
    named_nonsense: int = 0
    named_nonsense_answered: int = 0
    named_nonsense_most: int = 0  # the most hits one nonsense question naming them got
    named_misses: list[str] = field(default_factory=list)


def read_account(path: Path) -> dict[str, Any]:
    data = read_scenario(path, REQUIRED)
    contents = {m.get("content") for m in data["memories"] if isinstance(m, dict)}
    for question in data["questions"]:
        answers = question.get("answers") if isinstance(question, dict) else None
        if not isinstance(answers, list) or not isinstance(question.get("question"), str):
            raise NotAnAccount(f"{path}: each question needs 'question' and a list 'answers'.")
        if not answers or any(a not in contents for a in answers):
            raise NotAnAccount(f"{path}: {question['question']!r} has answers not stored.")
    return data


def _asked(user: Any, question: dict[str, Any]) -> tuple[bool, bool]:
    """(right at rank 1, in the top 5) for one question with its answers."""
    answers = set(question["answers"])
    found = [
        h.item.content
        for h in recall(user=user, query=question["question"], queries=question.get("queries"))
    ]
    return bool(found[:1]) and found[0] in answers, bool(answers & set(found[:5]))


def evaluate_account(
    path: Path,
    data: dict[str, Any],
    *,
    keep: bool = False,
    settled: bool = False,
    named: bool = False,
    phrased: bool = False,
    said: bool = True,
    mem0: bool = False,
    label: str = "",
) -> AccountScore:
    """`settled`: the owner's word counts are read again once every memory is in, as a
    question asked later sees them (not as sampled while the memories were told, which
    depends on how fast they were: retrieval/termstats.py). `named`: the account stored
    by name (`bench.byname`), also asked naming the person; with `said=False` nothing
    declares the person's name (no memory gives it, no account name); with `mem0` the
    memories are written as mem0's SDK writes them (`bench.byname.told_as_mem0`).
    `phrased`: each question with the phrasings a strong model would give (`queries`,
    bench/data/phrasings-*.json). `label` is added to the row's name ("+ scenes")."""
    told = (" (by name)" if said else " (by name, never said)") if named else ""
    told = " (mem0's style)" if named and mem0 else told
    score = AccountScore(path.stem + told + (" + phrasings" if phrased else "") + label)
    if named:
        data = by_name(data, said=said, mem0=mem0)
    with throwaway_user("account", keep=keep) as user:
        if data.get("account_name"):
            user.first_name, _, user.last_name = data["account_name"].partition(" ")
            user.save(update_fields=["first_name", "last_name"])
        memories_tell(user, data["memories"])
        if settled:
            keyword.clear_caches()
            holder.clear_cache()
        for question in data["questions"]:
            top1, top5 = _asked(user, question)
            score.questions += 1
            score.top1 += top1
            score.top5 += top5
            if not top1:
                score.misses.append(question["question"])
        for question in data.get("named_questions", []):
            top1, top5 = _asked(user, question)
            score.named += 1
            score.named_top1 += top1
            score.named_top5 += top5
            if not top1:
                score.named_misses.append(question["question"])
        for question in data.get("named_nonsense", []):
            hits = len(recall(user=user, query=question))
            score.named_nonsense += 1
            score.named_nonsense_answered += bool(hits)
            score.named_nonsense_most = max(score.named_nonsense_most, hits)
        for question in data["nonsense_questions"]:
            hits = len(recall(user=user, query=question))
            score.nonsense += 1
            score.nonsense_hits += hits
            score.nonsense_answered += bool(hits)
        for question in data.get("broad_questions", []):
            score.broad += 1
            score.broad_answered += bool(recall(user=user, query=question))
    return score


ACCOUNT_HEAD = [
    "account", "questions", "right at rank 1", "in the top 5", "nonsense with hits",
    "hits per nonsense question", "broad answered",
]  # fmt: skip


NAMED_HEAD = [
    "account stored by name", "first person: rank 1", "top 5", "naming the person: rank 1",
    "top 5", "nonsense with hits", "nonsense naming the person with hits",
    "most hits for one",
]  # fmt: skip


def account_table(scores: list[AccountScore]) -> list[str]:
    return markdown_table(ACCOUNT_HEAD, (_account_row(s) for s in scores))


def named_table(scores: list[AccountScore]) -> list[str]:
    """The accounts stored by name: first-person questions, questions naming the person,
    nonsense as asked and nonsense naming the person."""
    return markdown_table(NAMED_HEAD, (_named_row(s) for s in scores if s.named))


def _named_row(s: AccountScore) -> list[Any]:
    n, m = max(1, s.questions), max(1, s.named)
    return [
        s.name, f"{s.top1 / n:.3f}", f"{s.top5 / n:.3f}", f"{s.named_top1 / m:.3f}",
        f"{s.named_top5 / m:.3f}", f"{s.nonsense_answered} of {s.nonsense}",
        f"{s.named_nonsense_answered} of {s.named_nonsense}", s.named_nonsense_most,
    ]  # fmt: skip


def _account_row(s: AccountScore) -> list[Any]:
    n = max(1, s.questions)
    return [
        s.name, s.questions, f"{s.top1 / n:.3f}", f"{s.top5 / n:.3f}",
        f"{s.nonsense_answered} of {s.nonsense}", f"{s.nonsense_hits / max(1, s.nonsense):.2f}",
        f"{s.broad_answered} of {s.broad}",
    ]  # fmt: skip
