"""The Python client's graph methods: entities and relations written and read, a new
employer ending the old one, and recall naming the relation that brought a hit."""

import pytest
from gaia_memory import GaiaError

from graph.services import entity_create
from memory import services

pytestmark = pytest.mark.django_db


def test_relate_end_merge_and_split_through_the_client(memory, alice):
    item = services.memory_create(user=alice, content="Rui designs public libraries")
    rui = memory.add_entity("Rui", kind="person", aliases=["Rui Costa"])
    partner = memory.relate("me", "partner_of", rui["id"], memory_ids=[item.pk])
    assert partner["sentence"] == "me is the partner of Rui"
    memory.relate("Rui", "works_at", "Atelier Norte", object_kind="organisation",
                  valid_from="2021-01-01T09:00:00Z")  # fmt: skip
    bank = memory.relate("Rui", "works_at", "Banco Atlântico", object_kind="organisation")
    page = memory.entity(rui["id"])
    assert [r["object"]["name"] for r in page["relations_now"]] == ["Banco Atlântico", "Rui"]
    assert page["relations_before"][0]["ended_by"] == bank["id"]
    hits = memory.recall("what does my partner do?")
    assert hits[0].id == item.pk and hits[0].via == "my partner is Rui"
    ended = memory.end_relation(partner["id"])
    assert ended["current"] is False
    assert [r["id"] for r in memory.relations(current=False)][:1] == [partner["id"]]
    other = memory.add_entity("Mr Costa", kind="person")
    assert memory.entity_aliases(rui["id"], add=["Mr Costa"])["taken"] == ["Mr Costa"]
    merged = memory.merge_entities(rui["id"], other["id"])
    assert merged["aliases"] == ["Mr Costa", "Rui", "Rui Costa"]
    split = memory.split_entity(rui["id"], "Mr Costa")
    assert split["aliases"] == ["Mr Costa"]
    assert {e["name"] for e in memory.entities(kind="person")} == {"me", "Rui", "Mr Costa"}


def test_another_persons_entity_is_an_error_like_a_missing_one(memory, bob):
    bobs = entity_create(user=bob, name="Rui", kind="person")
    with pytest.raises(GaiaError) as foreign:
        memory.entity(bobs.pk)
    assert foreign.value.status == 404
