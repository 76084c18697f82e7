"""Retrieval quality on LoCoMo-format conversations, through the real services.

Each conversation is loaded three times, each into a throwaway user: every turn (speaker,
text, session time) via `turns_append_many`, every observation as a knowledge item via
`memory_create`, linked to the turn it was drawn from (its first dia id) as `source_turn`
in condition "linked" (as extraction stores what it learns), linked to nothing in
"unlinked", every other one linked in "mixed". Each answerable question (categories 1-4)
is then asked of recall (and, once, of conversation search); recall@k is the share of its
evidence turns (dia ids) among the top k results, on the ranking (min_relevance 0) and,
for k = 10, among the hits the default relevance floor keeps.

In the linked condition, each question is also asked with a filter, as an agent that
knows whom or which conversation it asks about would: recall within the one entity (person)
that all the facts holding its evidence are about, conversation search within the one
session holding all of its evidence turns. Both are reported beside the same questions
asked without the filter. A filter removes only rows that cannot be evidence, so the
filtered row should score about as well or better (fused ranks can shift either way: the
keyword stage reaches deeper into fewer rows); a clear drop means the filtered search
misses rows the filter allows.

With the recall scenarios (own facts and nonsense questions), the linked user also gets
the 20 facts a person tells directly (`source="user"`, linked to nothing): each question
should put its fact first (top-1 and top-3 rates), and the nonsense questions should get
nothing back (hits per question, with the default relevance floor).
"""

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model

from bench import floors
from bench.locomo_data import (
    dia_places,
    load_conversation,
    questions,
    read_conversation,
)
from bench.speed import seed
from bench.synthetic import TextSource
from conversations.search import search_turns
from memory.models import KnowledgeItem
from memory.recall import recall
from memory.services import memory_create
from retrieval import keyword
from retrieval.fulltext_upkeep import fulltext_optimize

KS = (5, 10)
DISTRACTOR_POOL = 2000  # distractor texts embedded for real; the rest are perturbed copies


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

    def merge_sums(self, other: "Scores") -> None:
        """Add `other`'s sums (the same questions asked under another condition)."""
        for key, value in other.sums.items():
            self.sums[key] += value

    probes: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def probe(self, name: str, value: float) -> None:
        self.probes[name].append(value)

    def probe_mean(self, name: str) -> float:
        values = self.probes.get(name, [])
        return sum(values) / len(values) if values else 0.0

    def probe_count(self, name: str) -> int:
        return len(self.probes.get(name, []))


LINKS = {"unlinked": "none", "linked": "all", "mixed": "half"}  # condition -> which facts link


@dataclass(frozen=True)
class _Stored:
    """A conversation stored for `user`, the dia ids its turns and items hold, and the
    scores its questions add to."""

    user: Any
    scores: Scores
    turn_dia: dict[int, str]
    item_dias: dict[int, set[str]]


def _ask(stored: _Stored, data: dict, *, facts_as: str, turns: bool) -> None:
    """Recall@k of every question under one condition; with `turns`, also conversation
    search, and both again with a filter (`_ask_filtered`)."""
    user, scores, turn_dia, item_dias = (
        stored.user, stored.scores, stored.turn_dia, stored.item_dias
    )  # fmt: skip
    reachable = set().union(*item_dias.values()) if item_dias else set()
    places = dia_places(data)
    for category, text, wanted in questions(data):
        scores.count(category)
        floor = settings.GAIA_MIN_RELEVANCE
        if turns:
            turn_hits = search_turns(user=user, query=text, top_k=10, min_relevance=0)
            found = [turn_dia.get(h.turn.pk) for h in turn_hits]
            kept = [turn_dia.get(h.turn.pk) for h in turn_hits if h.relevance >= floor]
            for k in KS:
                scores.add(category, "turns", k, len(wanted & set(found[:k])) / len(wanted))
            scores.add(category, "turns floored", 10, len(wanted & set(kept)) / len(wanted))
        hits = recall(user=user, query=text, top_k=10, min_relevance=0)
        items = [item_dias.get(h.item.pk, set()) for h in hits]
        kept_items = [item_dias.get(h.item.pk, set()) for h in hits if h.relevance >= floor]
        scores.add(category, f"ceiling {facts_as}", 0, len(wanted & reachable) / len(wanted))
        for k in KS:
            found_items = set().union(*items[:k]) if items[:k] else set()
            scores.add(category, f"facts {facts_as}", k, len(wanted & found_items) / len(wanted))
        found_items = set().union(*kept_items) if kept_items else set()
        scores.add(
            category, f"facts {facts_as} floored", 10, len(wanted & found_items) / len(wanted)
        )
        if turns:
            _ask_filtered(stored, text, wanted, places, turn_hits, hits)
            turn_found = [{turn_dia.get(h.turn.pk)} for h in turn_hits]
            floors.probe_evidence(
                scores, "turns", wanted, turn_found, [h.relevance for h in turn_hits]
            )
            floors.probe_evidence(scores, "facts", wanted, items, [h.relevance for h in hits])


def _probe_recall(
    scores: Scores,
    name: str,
    wanted: set[str],
    found: list[set],
    relevances: list[float],
) -> None:
    """Recall@k of one question's ranked `found` (dia ids per hit) as probes named `name`,
    and at k = 10 among the hits whose `relevances` the default floor keeps."""
    floor = settings.GAIA_MIN_RELEVANCE
    for k in KS:
        got = set().union(*found[:k]) if found[:k] else set()
        scores.probe(f"{name} R@{k}", len(wanted & got) / len(wanted))
    kept = [f for f, r in zip(found, relevances, strict=True) if r >= floor]
    got = set().union(*kept) if kept else set()
    scores.probe(f"{name} R@10 floored", len(wanted & got) / len(wanted))


def _ask_filtered(
    stored: _Stored,
    text: str,
    wanted: set[str],
    places: dict[str, tuple[str, str]],
    turn_hits: list,
    item_hits: list,
) -> None:
    """The question with the filter an agent that knows where its answer lies would pass,
    beside the same question's unfiltered hits (`turn_hits`, `item_hits`): conversation
    search within the one session holding all the evidence, recall within the one entity
    (person) all the evidence's facts are about."""
    user, scores, turn_dia, item_dias = (
        stored.user, stored.scores, stored.turn_dia, stored.item_dias
    )  # fmt: skip
    sessions = {places[d][0] for d in wanted if d in places}
    if len(sessions) == 1:
        filtered = search_turns(
            user=user, query=text, top_k=10, min_relevance=0, session_id=sessions.pop()
        )
        for name, hits in (("turns", turn_hits), ("turns filtered", filtered)):
            found = [{turn_dia.get(h.turn.pk)} for h in hits]
            _probe_recall(scores, name, wanted, found, [h.relevance for h in hits])
    holding = [item for item, dias in item_dias.items() if dias & wanted]
    entities = set(KnowledgeItem.objects.filter(pk__in=holding).values_list("entity", flat=True))
    if len(entities) == 1:
        filtered = recall(user=user, query=text, top_k=10, min_relevance=0, entity=entities.pop())
        for name, hits in (("facts", item_hits), ("facts filtered", filtered)):
            found = [item_dias.get(h.item.pk, set()) for h in hits]
            _probe_recall(scores, name, wanted, found, [h.relevance for h in hits])


def _own_facts(user: Any, scenarios: dict, scores: Scores, *, settled: bool = False) -> None:
    """Facts a person tells directly, among the conversation's linked facts (`settled`:
    asked with the owner's word counts read again once they are in, as in
    `evaluate_conversation`)."""
    stored = [
        memory_create(user=user, content=entry["fact"], source="user").pk
        for entry in scenarios["own_facts"]
    ]
    if settled:
        keyword.clear_caches()
    for item_id, entry in zip(stored, scenarios["own_facts"], strict=True):
        ids = [h.item.pk for h in recall(user=user, query=entry["question"], top_k=3)]
        scores.probe("own top-1", float(ids[:1] == [item_id]))
        scores.probe("own top-3", float(item_id in ids))
        for floor in floors.FLOORS:  # asked again as if each floor were the default
            ids = [
                h.item.pk
                for h in recall(user=user, query=entry["question"], top_k=3, min_relevance=floor)
            ]
            floors.probe(scores, floor, "own top-1", float(ids[:1] == [item_id]))
    for question in scenarios["nonsense_questions"]:  # with the default relevance floor
        scores.probe("nonsense recall hits", float(len(recall(user=user, query=question))))
        found = search_turns(user=user, query=question)
        scores.probe("nonsense turn hits", float(len(found)))
        for floor in floors.FLOORS:
            hits = len(recall(user=user, query=question, min_relevance=floor))
            floors.probe(scores, floor, "nonsense recall hits", float(hits))
            hits = len(search_turns(user=user, query=question, min_relevance=floor))
            floors.probe(scores, floor, "nonsense turn hits", float(hits))


def evaluate_conversation(
    data: dict,
    scores: Scores,
    *,
    scenarios: dict | None = None,
    keep: bool = False,
    settled: bool = False,
    distractors: int = 0,
) -> None:
    """Every condition on one conversation, each in its own throwaway user (holding
    `distractors` synthetic items and turns first, as a store with much else in it).

    The questions follow the load within seconds, so they are weighed with the owner's word
    counts as sampled early in it (reused for 30 s, `retrieval/termstats.py`). `settled`
    reads the counts again once the conversation is in, as a question asked later sees them.
    """
    for condition, link in LINKS.items():
        user = get_user_model().objects.create_user(f"locomo-{uuid.uuid4().hex[:12]}")
        try:
            if distractors:
                rng = np.random.default_rng(distractors)
                seed(user, distractors, TextSource(seed=distractors), DISTRACTOR_POOL, rng)
            counted = Scores()  # questions are counted once, in the linked condition
            asked = scores if condition == "linked" else counted
            stored = _Stored(user, asked, *load_conversation(user, data, link=link))
            if settled:
                keyword.clear_caches()
            _ask(stored, data, facts_as=condition, turns=condition == "linked")
            if condition != "linked":
                scores.merge_sums(counted)
            if condition == "linked" and scenarios:
                _own_facts(user, scenarios, scores, settled=settled)
        finally:
            if not keep:
                user.delete()


def evaluate_folder(
    folder: Path,
    *,
    scenarios: dict | None = None,
    keep: bool = False,
    settled: bool = False,
    distractors: int = 0,
    progress=None,
) -> Scores:
    scores = Scores()
    files = sorted(folder.glob("*.json"))
    if not files:
        raise FileNotFoundError(f"No *.json conversations in {folder}")
    conversations = [(path.name, read_conversation(path)) for path in files]  # all, before any load
    for name, data in conversations:
        if progress:
            beside = f", each beside {distractors} distractors" if distractors else ""
            progress(f"loading and asking {name} (unlinked, linked, mixed{beside}) ...")
        evaluate_conversation(
            data,
            scores,
            scenarios=scenarios,
            keep=keep,
            settled=settled,
            distractors=distractors,
        )
    if not keep:
        fulltext_optimize()  # once: it rewrites the whole index, not only the eval's rows
    return scores
