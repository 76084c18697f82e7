"""Recall follows the graph: a question naming an entity (by name, alias or role) also
considers the items of the entities one relation away, and says which relation brought
each; a question naming none is recalled as without the graph."""

import pytest

from graph.services import entity_create, entity_holder, entity_link_items, relation_add
from memory.recall import recall
from memory.services import memory_create

pytestmark = pytest.mark.django_db

FACTS = [
    "Rui is an architect who designs libraries and schools",
    "Atelier Norte is a small architecture studio in Porto",
    "I bake sourdough bread every Sunday morning",
    "The dentist appointment is on the ninth of March",
    "Marta runs the quarterly planning meeting for Helix",
    "My sister Inês teaches maths at a secondary school",
    "Our dog Pipoca is afraid of thunderstorms",
    "I started learning the cello in January",
]


@pytest.fixture
def life(alice, commit):
    with commit():
        items = [memory_create(user=alice, content=text) for text in FACTS]
        me = entity_holder(user=alice)
        rui = entity_create(user=alice, name="Rui", kind="person", aliases=["Rui Costa"])
        atelier = entity_create(user=alice, name="Atelier Norte", kind="organisation")
        helix = entity_create(user=alice, name="Helix", kind="team", aliases=["the Helix team"])
        marta = entity_create(user=alice, name="Marta", kind="person")
        entity_link_items(user=alice, entity=rui, item_ids=[items[0].pk])
        entity_link_items(user=alice, entity=atelier, item_ids=[items[1].pk])
        relation_add(user=alice, subject=me, type="partner_of", object=rui)
        relation_add(user=alice, subject=rui, type="works_at", object=atelier)
        relation_add(user=alice, subject=me, type="member_of", object=helix)
        relation_add(user=alice, subject=marta, type="leads", object=helix, item_ids=[items[4].pk])
    return items


def test_it_finds_what_a_partner_named_by_role_does_and_says_which_relation_brought_it(alice, life):
    hits = recall(user=alice, query="what does my partner do?", top_k=3, min_relevance=0)
    assert hits[0].item.pk == life[0].pk
    assert hits[0].via == "my partner is Rui"


def test_it_follows_one_relation_from_the_named_entity(alice, life):
    hits = recall(user=alice, query="what kind of place does Rui Costa work at?", top_k=3)
    assert life[1].pk in [h.item.pk for h in hits]
    found = next(h for h in hits if h.item.pk == life[1].pk)
    assert found.via == "Rui works at Atelier Norte"


def test_it_finds_who_leads_the_team_the_person_is_on(alice, life):
    hits = recall(user=alice, query="who leads the team I am on?", top_k=3, min_relevance=0)
    assert hits[0].item.pk == life[4].pk


def test_a_question_naming_no_entity_is_recalled_as_without_the_graph(alice, life, commit):
    asked = "when do I see the dentist?"
    before = [(h.item.pk, h.score, h.matched_by, h.via) for h in recall(user=alice, query=asked)]
    with commit():
        entity_create(user=alice, name="Dr Lopes", kind="person")
    after = [(h.item.pk, h.score, h.matched_by, h.via) for h in recall(user=alice, query=asked)]
    assert after == before
    assert all(via == "" for *_, via in after)


def test_another_persons_graph_never_brings_their_items(alice, bob, life, commit):
    with commit():
        memory_create(user=bob, content="Bob's partner is a nurse")
        rui = entity_create(user=bob, name="Rui", kind="person")
        relation_add(user=bob, subject=entity_holder(user=bob), type="partner_of", object=rui)
    hits = recall(user=bob, query="what does my partner do?", top_k=5, min_relevance=0)
    assert {h.item.owner_id for h in hits} == {bob.pk}
