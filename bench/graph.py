"""Recall that follows relations, measured on one person's life (bench/data/graph-*.json).

A graph scenario holds a person's memories, the entities of their life with their aliases,
which memories are about which entity, the relations between them (with when they held)
as an agent would have written them with `relate`, and questions in an agent's words that
need one relation ("what does my partner do?"). Everything is stored through the services
in a throwaway user and each question asked through `recall` with the default settings:
first with the graph, then with the same memories and no graph (recall exactly as it is
without the relation stage). A question is in the top 5 when any of its first five hits
is one of its answers; a nonsense question should get none.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.markdown import markdown_table
from bench.scenario import NotAnAccount, memories_tell, read_scenario, throwaway_user
from graph.services import (
    entity_create,
    entity_holder,
    entity_link_items,
    graph_erase_user,
    relation_add,
    relation_end,
)
from memory.recall import recall

REQUIRED = ("entities", "memories", "relations", "questions", "nonsense_questions")


@dataclass
class GraphScore:
    name: str
    questions: int = 0
    top1: dict[str, int] = field(default_factory=lambda: {"graph": 0, "plain": 0})
    top5: dict[str, int] = field(default_factory=lambda: {"graph": 0, "plain": 0})
    nonsense: int = 0
    nonsense_answered: dict[str, int] = field(default_factory=lambda: {"graph": 0, "plain": 0})
    misses: list[str] = field(default_factory=list)  # not in the top 5 with the graph


def read_graph_scenario(path: Path) -> dict[str, Any]:
    data = read_scenario(path, REQUIRED)
    contents = {m.get("content") for m in data["memories"] if isinstance(m, dict)}
    for question in data["questions"]:
        if not set(question.get("answers") or ["?"]) <= contents:
            raise NotAnAccount(f"{path}: {question.get('question')!r} has answers not stored.")
    return data


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value).replace(tzinfo=UTC) if value else None


def _build(user: Any, data: dict[str, Any]) -> None:
    """The memories, then the graph an agent would have written beside them."""
    ids = memories_tell(user, data["memories"])
    entities = {"me": entity_holder(user=user)}
    for entity in data["entities"]:
        entities[entity["name"]] = entity_create(
            user=user, name=entity["name"], kind=entity["kind"], aliases=entity.get("aliases", [])
        )
    for memory in data["memories"]:
        for name in memory.get("about", []):
            entity_link_items(user=user, entity=entities[name], item_ids=[ids[memory["content"]]])
    for r in data["relations"]:
        relation = relation_add(
            user=user,
            subject=entities[r["subject"]],
            type=r["type"],
            object=entities[r["object"]],
            item_ids=[ids[c] for c in r.get("from", [])],
            valid_from=_when(r.get("valid_from")),
        )
        if r.get("valid_to"):
            relation_end(user=user, relation=relation, at=_when(r["valid_to"]))


def _ask(user: Any, data: dict[str, Any], score: GraphScore, stage: str) -> None:
    for question in data["questions"]:
        answers = set(question["answers"])
        found = [h.item.content for h in recall(user=user, query=question["question"])]
        score.top1[stage] += bool(found[:1]) and found[0] in answers
        score.top5[stage] += bool(answers & set(found[:5]))
        if stage == "graph" and not answers & set(found[:5]):
            score.misses.append(question["question"])
    for question in data["nonsense_questions"]:
        score.nonsense_answered[stage] += bool(recall(user=user, query=question))


def evaluate_graph(path: Path, data: dict[str, Any], *, keep: bool = False) -> GraphScore:
    """Ask the scenario's questions with the graph, then with its memories alone."""
    score = GraphScore(path.stem, len(data["questions"]), nonsense=len(data["nonsense_questions"]))
    with throwaway_user("graph", keep=keep) as user:
        _build(user, data)
        _ask(user, data, score, "graph")
        graph_erase_user(user=user)
        _ask(user, data, score, "plain")
    return score


GRAPH_HEAD = [
    "scenario", "questions", "R@5 with relations", "R@5 without", "R@1 with", "R@1 without",
    "nonsense with hits (with / without)",
]  # fmt: skip


def graph_table(scores: list[GraphScore]) -> list[str]:
    return markdown_table(GRAPH_HEAD, (_graph_row(s) for s in scores))


def _graph_row(s: GraphScore) -> list[Any]:
    n = max(1, s.questions)
    shares = [f"{share[side] / n:.3f}" for share in (s.top5, s.top1) for side in ("graph", "plain")]
    answered = f"{s.nonsense_answered['graph']} / {s.nonsense_answered['plain']} of {s.nonsense}"
    return [s.name, s.questions, *shares, answered]
