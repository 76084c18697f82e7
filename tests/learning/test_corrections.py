"""A conversation that corrects itself, learned through a stand-in model that answers as
real local models do (code fences, thinking blocks, prose, upper-case operations): one
current fact at the end, every earlier statement kept as a version, nothing lost."""

import json
import re

import pytest

from conversations.services.recording import turn_append
from learning import extraction, reconciliation
from memory.models import KnowledgeItem, MemoryVersion
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
HISTORY = "/api/v1/memories/{}/history/"
_LATEST = re.compile(r'Latest user message:\n(".*")\s*$', re.S)
_PLACE = re.compile(r"I live in (\w+)")
_KNOWN = re.compile(r"Existing memories:\n(.*?)\nRecent conversation:", re.S)


def _fence(ops: list[dict]) -> str:
    return f"```json\n{json.dumps({'operations': ops}, indent=2)}\n```"


def _thinking(ops: list[dict]) -> str:
    return "<think>\nThe user corrects where they live; update it.\n</think>\n\n" + json.dumps(
        {"operations": ops}
    )


def _prose(ops: list[dict]) -> str:
    return f"Here are the memory operations:\n\n{json.dumps({'operations': ops})}\n\nDone!"


def _upper(ops: list[dict]) -> str:
    return json.dumps({"operations": [{**op, "op": op["op"].upper()} for op in ops]})


def _stand_in(shape, *, corrections_as_adds: bool = False):
    """A model that stores where the user lives: ADD the first time, then UPDATE the
    memory it is shown (or ADD again, as a careless model does)."""

    def make(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        place = _PLACE.search(json.loads(_LATEST.search(prompt).group(1))).group(1)
        fact = {"category": "fact", "content": f"User lives in {place}"}
        shown = json.loads(_KNOWN.search(prompt).group(1))
        known = [m for m in shown if m["content"].startswith("User lives in")]
        if known and not corrections_as_adds:
            return shape([{"op": "update", "knowledge_id": known[0]["knowledge_id"], **fact}])
        return shape([{"op": "add", **fact}])

    return f.replying(make)


PLACES = ["Porto", "Lisbon", "Madrid", "Valencia"]
CONVERSATION = [
    ("I live in Porto, by the river.", _fence),
    ("Sorry, I misspoke: I live in Lisbon.", _thinking),
    ("Hm, no. Since March I live in Madrid.", _prose),
    ("Last correction, promise: I live in Valencia.", _upper),
]


def _talk(fake_llm, user, *, corrections_as_adds: bool = False) -> None:
    for text, shape in CONVERSATION:
        turn = turn_append(user=user, session_id="moving", role="user", content=text)
        fake_llm.then(_stand_in(shape, corrections_as_adds=corrections_as_adds))
        assert extraction.extract_turn(turn_id=turn.pk)["status"] == "done"
        turn_append(user=user, session_id="moving", role="assistant", content="Noted.")


def test_three_corrections_end_with_one_fact_and_three_versions(fake_llm, alice, alice_api):
    _talk(fake_llm, alice)

    [current] = KnowledgeItem.objects.for_user(alice).active()
    assert current.content == "User lives in Valencia"
    kept = MemoryVersion.objects.for_user(alice).filter(item=current).order_by("created_at")
    assert [v.content for v in kept] == [
        "User lives in Porto",
        "User lives in Lisbon",
        "User lives in Madrid",
    ]
    history = alice_api.get(HISTORY.format(current.pk)).json()["results"]
    assert [e["content"] for e in history] == [
        "User lives in Valencia",
        "User lives in Madrid",
        "User lives in Lisbon",
        "User lives in Porto",
    ]
    assert KnowledgeItem.objects.for_user(alice).count() == 1  # nothing else, nothing lost


def test_corrections_stored_as_new_facts_are_linked_and_reconciled_to_one(fake_llm, alice):
    """A model that ADDs each correction: every place is kept, linked to the one before
    as a possible conflict, and reconciliation leaves the newest current."""
    _talk(fake_llm, alice, corrections_as_adds=True)
    rows = list(KnowledgeItem.objects.for_user(alice).order_by("pk"))
    assert [r.content for r in rows] == [f"User lives in {p}" for p in PLACES]
    assert [r.conflicts_with_id for r in rows] == [None, rows[0].pk, rows[1].pk, rows[2].pk]

    fake_llm.then(
        f.content(
            "<think>Each newer place replaces the older one.</think>\n```json\n"
            '{"judgements": [{"pair": 0, "outcome": "CONTRADICT"}, '
            '{"pair": 1, "outcome": "Contradict"}, {"pair": 2, "outcome": "contradict"}]}\n```'
        )
    )
    assert reconciliation.reconcile_user(user=alice)["contradict"] == 3

    [current] = KnowledgeItem.objects.for_user(alice).active()
    assert current.content == "User lives in Valencia"
    assert KnowledgeItem.objects.for_user(alice).count() == 4  # nothing lost
    assert not KnowledgeItem.objects.for_user(alice).filter(conflicts_with__isnull=False).exists()
