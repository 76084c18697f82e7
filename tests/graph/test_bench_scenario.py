"""The graph scenario (bench/data/graph-priya.json) is what `memory_eval graph` reads: a
life of ~150 memories with 40+ one-hop questions, every answer and source stored, every
entity it names known; a file that is not one is refused by name before anything runs."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from bench.account import NotAnAccount
from bench.graph import read_graph_scenario

SCENARIO = Path(__file__).resolve().parents[2] / "bench" / "data" / "graph-priya.json"


def test_the_shipped_scenario_is_whole():
    data = read_graph_scenario(SCENARIO)
    contents = {m["content"] for m in data["memories"]}
    names = {e["name"] for e in data["entities"]} | {"me"}
    assert len(contents) == len(data["memories"]) >= 140
    assert len(data["questions"]) >= 40
    assert all(set(m["about"]) <= names for m in data["memories"])
    for relation in data["relations"]:
        assert {relation["subject"], relation["object"]} <= names
        assert set(relation["from"]) <= contents


def test_a_scenario_whose_answers_are_not_stored_is_refused(tmp_path):
    bad = tmp_path / "graph-bad.json"
    bad.write_text(json.dumps({
        "entities": [], "relations": [], "nonsense_questions": [],
        "memories": [{"content": "Rui is an architect"}],
        "questions": [{"question": "What does my partner do?", "answers": ["Rui is a chef"]}],
    }))  # fmt: skip
    with pytest.raises(NotAnAccount, match="answers not stored"):
        read_graph_scenario(bad)
    with pytest.raises(CommandError, match="graph-bad.json"):
        call_command("memory_eval", "graph", str(bad))
