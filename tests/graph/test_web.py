"""The graph pages: the drawing and list of a person's entities, an entity's page with
its relations now and before, and the aliases, merge, split and end done there; another
person's ids are a 404 and their entities never shown."""

from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import Alias, Entity, Relation
from graph.services import entity_create, entity_holder, entity_link_items, relation_add
from graph.wording import relation_words
from memory.services import memory_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def rui(alice):
    rui = entity_create(user=alice, name="Rui", kind="person", aliases=["Rui Costa"])
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    bank = entity_create(user=alice, name="Banco Atlântico", kind="organisation")
    relation_add(user=alice, subject=entity_holder(user=alice), type="partner_of", object=rui)
    relation_add(
        user=alice, subject=rui, type="works_at", object=firm,
        valid_from=timezone.now() - timedelta(days=900),
    )  # fmt: skip
    relation_add(
        user=alice, subject=rui, type="works_at", object=bank,
        valid_from=timezone.now() - timedelta(days=20),
    )  # fmt: skip
    item = memory_create(user=alice, content="Rui designs libraries and now advises a bank")
    entity_link_items(user=alice, entity=rui, item_ids=[item.pk])
    return rui


def test_the_drawing_shows_a_new_employer_and_the_ended_one_dashed(alice_web, rui):
    page = alice_web.get("/graph/").content.decode()
    assert "<svg" in page and "Banco Atlântico" in page and "Atelier Norte" in page
    assert page.count('stroke-dasharray="5 4"') == 1  # the ended works_at
    assert "works at (until " in page and "works_at" not in page


def test_the_entity_page_shows_relations_now_and_before_and_its_memories(alice_web, rui):
    page = alice_web.get(f"/graph/entities/{rui.pk}/").content.decode()
    now, before = page.split('id="relations-before"')
    assert "Banco Atlântico" in now.split('id="relations-now"')[1]
    assert "Atelier Norte" in before and "Rui works at Banco Atlântico" in before
    assert "Rui designs libraries" in page and "Rui Costa" in page


def test_the_person_reads_as_you_with_their_relations_in_their_own_words(alice, alice_web, rui):
    me = entity_holder(user=alice)
    page = alice_web.get(f"/graph/entities/{me.pk}/").content.decode()
    assert "<h1>You " in page and "me, myself" not in page
    assert ">You</a> are the partner of <a" in page
    assert "Two people under one name?" not in page  # the person is never split
    assert 'placeholder="your name, as people write it"' in page  # not "my partner"
    ruis = alice_web.get(f"/graph/entities/{rui.pk}/").content.decode()
    assert ">You</a> are the partner of <a" in ruis and ">me</a>" not in ruis
    listed = alice_web.get("/graph/").content.decode()
    assert "<strong>You</strong>" in listed and "myself" not in listed


def test_aliases_merge_split_and_end_from_the_page(alice, alice_web, rui):
    costa = entity_create(user=alice, name="Mr Costa", kind="person")
    alice_web.post(f"/graph/entities/{rui.pk}/alias/", {"alias": "my partner"})
    assert Alias.objects.get(owner=alice, key="my partner").entity_id == rui.pk
    alice_web.post(f"/graph/entities/{rui.pk}/merge/", {"other": costa.pk})
    assert not Entity.objects.filter(pk=costa.pk).exists()
    answer = alice_web.post(f"/graph/entities/{rui.pk}/split/", {"name": "Mr Costa", "aliases": ""})
    new = Entity.objects.get(owner=alice, name="Mr Costa")
    assert answer.status_code == 302 and answer["Location"] == f"/graph/entities/{new.pk}/"
    partner = Relation.objects.get(owner=alice, type="partner_of")
    alice_web.post(f"/graph/relations/{partner.pk}/end/", {"entity": rui.pk})
    partner.refresh_from_db()
    assert partner.valid_to is not None


@pytest.mark.cross_user(
    "web-graph", "web-graph-entity", "web-graph-entity-action", "web-graph-relation-end"
)
def test_another_persons_entities_are_a_404_and_never_shown(alice, bob_web, rui):
    partner = Relation.objects.get(owner=alice, type="partner_of")
    for url in (f"/graph/entities/{rui.pk}/", "/graph/entities/999999/"):
        assert bob_web.get(url).status_code == 404
    for action, body in (("alias", {"alias": "x"}), ("merge", {"other": rui.pk}),
                         ("split", {"name": "Other"})):  # fmt: skip
        assert bob_web.post(f"/graph/entities/{rui.pk}/{action}/", body).status_code == 404
    assert bob_web.post(f"/graph/relations/{partner.pk}/end/").status_code == 404
    page = bob_web.get("/graph/").content.decode()
    assert "Rui" not in page and "Atelier Norte" not in page
    partner.refresh_from_db()
    assert partner.valid_to is None and Entity.objects.filter(owner=alice).count() == 4
    assert not Alias.objects.filter(owner=alice, key="x").exists()


@pytest.mark.parametrize(
    ("subject", "type_", "obj", "said"),
    [
        ("me", "studies_at", "Porto University", "You study at Porto University"),
        ("me", "owns", "Pipoca", "You own Pipoca"),
        ("me", "reports_to", "Marta", "You report to Marta"),
        ("Marta", "manages", "me", "Marta manages you"),
    ],
)
def test_a_relation_reads_in_the_second_person_where_the_person_is_in_it(
    alice, subject, type_, obj, said
):
    relation = relation_add(
        user=alice, subject=entity_create(user=alice, name=subject, kind="person"),
        type=type_, object=entity_create(user=alice, name=obj),
    )  # fmt: skip
    words = relation_words(relation)
    assert f"{words['subject_name']} {words['phrase']} {words['object_name']}" == said
