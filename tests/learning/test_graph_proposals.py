"""Extraction proposes entities and relations with the facts: read from any answer shape
a model gives (fences, thinking, prose, odd casing), merged by exact alias, linked to
the fact and its turn; a contradicting relation ends the old one; a proposal that
cannot be read is dropped without refusing its fact."""

import json

import pytest

from conversations.services.recording import turn_append
from graph.models import Entity, Relation
from graph.services import entity_create
from learning import extraction
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


def said(user, text):
    return turn_append(user=user, session_id="s1", role="user", content=text)


def test_a_fenced_answer_with_thinking_and_odd_casing_builds_the_graph(fake_llm, alice):
    entity_create(user=alice, name="Rui", kind="person", aliases=["Rui Costa"])
    turn = said(alice, "My partner Rui Costa started at Atelier Norte, the architecture firm")
    operations = [
        {
            "OP": "ADD",
            "Content": "User's partner Rui works at Atelier Norte, an architecture firm",
            "Entities": [{"Name": "rui costa", "Kind": "Person"}, "Atelier Norte"],
            "Relations": [
                {"Subject": "User", "Type": "Partner Of", "Object": "Rui"},
                {"from": "Rui Costa", "relation": "works-for", "to": "Atelier Norte",
                 "object_kind": "Company"},
                {"subject": "Rui", "type": "adores", "object": "Porto"},
            ],
        }
    ]  # fmt: skip
    fake_llm.then(
        f.content(
            "<think>\nThe user named their partner.\n</think>\n\n```json\n"
            + json.dumps({"operations": operations}, indent=2)
            + "\n```"
        )
    )
    result = extraction.extract_turn(turn_id=turn.pk)
    assert result["added"] == 1 and result["refused"] == 0
    item = KnowledgeItem.objects.for_user(alice).get()
    rui = Entity.objects.get(owner=alice, name="Rui")  # merged by exact alias, not a twin
    atelier = Entity.objects.get(owner=alice, name="Atelier Norte")
    assert atelier.kind == "organisation"
    assert Entity.objects.filter(owner=alice).count() == 3  # me, Rui, Atelier Norte
    partner, works = Relation.objects.filter(owner=alice).order_by("pk")
    assert (partner.subject.holder, partner.type, partner.object_id) == (True, "partner_of", rui.pk)
    assert (works.subject_id, works.type, works.object_id) == (rui.pk, "works_at", atelier.pk)
    assert works.item_ids == [item.pk] and list(works.turns.all()) == [turn]
    assert set(rui.mentions.values_list("item_id", flat=True)) == {item.pk}


def test_a_later_fact_ends_the_old_employer_and_keeps_it(fake_llm, alice):
    first = said(alice, "Rui works at Atelier Norte")
    fake_llm.then(
        f.answer({"operations": [{"op": "add", "content": "Rui works at Atelier Norte",
                  "relations": [{"subject": "Rui", "type": "works_at",
                                 "object": "Atelier Norte"}]}]})
    )  # fmt: skip
    extraction.extract_turn(turn_id=first.pk)
    later = said(alice, "Rui now works at a bank, Banco Atlântico")
    fake_llm.then(
        f.content(
            "Here are the operations:\n"
            + json.dumps([{"op": "add", "content": "Rui now works at Banco Atlântico",
                           "relationships": [{"head": "Rui", "label": "WORKS_AT",
                                              "tail": "Banco Atlântico"}]}])
            + "\nLet me know!"
        )
    )  # fmt: skip
    extraction.extract_turn(turn_id=later.pk)
    old, new = Relation.objects.filter(owner=alice).order_by("pk")
    assert old.object.name == "Atelier Norte" and new.object.name == "Banco Atlântico"
    assert old.valid_to == new.valid_from and old.ended_by_id == new.pk and new.valid_to is None


def test_an_unreadable_proposal_never_refuses_its_fact(fake_llm, alice, bob):
    entity_create(user=bob, name="Rui", kind="person")
    turn = said(alice, "Rui has been my partner for ten years now")
    fake_llm.then(
        f.answer({"operations": [{"op": "add", "content": "User's partner is Rui",
                  "entities": [42, {"name": ""}], "relations": ["Rui partner", {"type": None},
                  {"subject": "Rui", "type": "partner_of", "object": "Rui"}]}]})
    )  # fmt: skip
    result = extraction.extract_turn(turn_id=turn.pk)
    assert result.get("added") == 1 and result.get("refused") == 0, result
    assert not Relation.objects.exists()
    assert Entity.objects.filter(owner=bob).count() == 1  # bob's Rui is never alice's
