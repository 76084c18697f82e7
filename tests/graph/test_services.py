"""The graph's writes: entities merged by exact alias, merge and split, relations that
end the one they contradict (kept, with their end), and never across owners."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from graph.models import Alias, Entity, Mention, Relation
from graph.selectors import filter_keys, relations
from graph.services import (
    entity_create,
    entity_holder,
    entity_link_items,
    entity_merge,
    entity_split,
    graph_erase_user,
    graph_forget_items,
    relation_add,
    relation_end,
)

pytestmark = pytest.mark.django_db


def test_it_gives_the_same_entity_for_any_of_its_names_whatever_the_case(alice):
    rui = entity_create(user=alice, name="Rui", kind="person", aliases=["Rui Costa"])
    again = entity_create(user=alice, name="rui  costa", kind="person", aliases=["Ruizinho"])
    assert again.pk == rui.pk
    assert set(rui.aliases.values_list("key", flat=True)) == {"rui", "rui costa", "ruizinho"}


def test_it_never_merges_across_owners(alice, bob):
    alices = entity_create(user=alice, name="Rui", kind="person")
    bobs = entity_create(user=bob, name="Rui", kind="person")
    assert alices.pk != bobs.pk
    with pytest.raises(ValidationError):
        entity_merge(user=alice, into=alices, other=bobs)
    with pytest.raises(ValidationError):
        relation_add(user=alice, subject=alices, type="works_at", object=bobs)
    assert Entity.objects.filter(pk=bobs.pk, owner=bob).exists()


def test_a_new_employer_ends_the_old_one_with_its_end_time_and_keeps_it(alice):
    rui = entity_create(user=alice, name="Rui", kind="person")
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    bank = entity_create(user=alice, name="Banco Atlântico", kind="organisation")
    started = timezone.now() - timedelta(days=400)
    old = relation_add(
        user=alice, subject=rui, type="works_at", object=firm, valid_from=started, item_ids=[7]
    )
    moved = timezone.now() - timedelta(days=3)
    new = relation_add(user=alice, subject=rui, type="works_at", object=bank, valid_from=moved)
    old.refresh_from_db()
    assert old.valid_to == moved and old.ended_by_id == new.pk and old.item_ids == [7]
    assert [r.object.name for r in relations(user=alice, entity=rui, current=True)] == [
        "Banco Atlântico"
    ]
    assert [r.object.name for r in relations(user=alice, entity=rui, current=False)] == [
        "Atelier Norte"
    ]


def test_a_relation_that_holds_already_gains_sources_instead_of_a_twin(alice):
    me = entity_holder(user=alice)
    rui = entity_create(user=alice, name="Rui", kind="person")
    first = relation_add(user=alice, subject=me, type="partner_of", object=rui, item_ids=[1])
    second = relation_add(user=alice, subject=rui, type="partner_of", object=me, item_ids=[2])
    assert first.pk == second.pk and second.item_ids == [1, 2]
    assert Relation.objects.count() == 1


def test_ending_a_relation_keeps_it_with_its_end(alice):
    me = entity_holder(user=alice)
    lisbon = entity_create(user=alice, name="Lisbon", kind="place")
    lived = relation_add(user=alice, subject=me, type="lives_in", object=lisbon)
    relation_end(user=alice, relation=lived)
    lived.refresh_from_db()
    assert lived.valid_to is not None and lived.ended_by is None


def test_merge_moves_aliases_items_and_relations_and_split_takes_them_back(alice):
    rui = entity_create(user=alice, name="Rui", kind="person")
    costa = entity_create(user=alice, name="Mr Costa", kind="person")
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    entity_link_items(user=alice, entity=costa, item_ids=[11])
    works = relation_add(user=alice, subject=costa, type="works_at", object=firm)
    merged = entity_merge(user=alice, into=rui, other=costa)
    assert not Entity.objects.filter(pk=costa.pk).exists()
    assert set(merged.aliases.values_list("key", flat=True)) == {"rui", "mr costa"}
    assert Mention.objects.get(item_id=11).entity_id == rui.pk
    assert Relation.objects.get(pk=works.pk).subject_id == rui.pk
    back = entity_split(
        user=alice, entity=rui, name="Mr Costa", item_ids=[11], relation_ids=[works.pk]
    )
    assert Alias.objects.get(key="mr costa").entity_id == back.pk
    assert Mention.objects.get(item_id=11).entity_id == back.pk
    assert Relation.objects.get(pk=works.pk).subject_id == back.pk


def test_an_entity_filter_stands_for_every_alias(alice, bob):
    entity_create(user=alice, name="Rui", kind="person", aliases=["Rui Costa", "my partner"])
    assert filter_keys(user=alice, entity="person:Rui") == [
        "person:my partner",
        "person:rui",
        "person:rui costa",
    ]
    assert filter_keys(user=bob, entity="person:rui") == ["person:rui"]


def test_erasing_items_and_people_removes_them_from_the_graph(alice, bob):
    rui = entity_create(user=alice, name="Rui", kind="person")
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    entity_link_items(user=alice, entity=rui, item_ids=[5, 6])
    works = relation_add(user=alice, subject=rui, type="works_at", object=firm, item_ids=[5, 6])
    bobs = entity_create(user=bob, name="Rui", kind="person")
    graph_forget_items(user=alice, item_ids=[5])
    works.refresh_from_db()
    assert works.item_ids == [6]
    assert list(Mention.objects.values_list("item_id", flat=True)) == [6]
    graph_erase_user(user=alice)
    assert not Entity.objects.filter(owner=alice).exists()
    assert not Relation.objects.filter(owner=alice).exists()
    assert Entity.objects.filter(pk=bobs.pk).exists()


def test_an_old_employer_learned_late_ends_where_the_current_one_starts(alice):
    rui = entity_create(user=alice, name="Rui", kind="person")
    bank = entity_create(user=alice, name="Banco Atlântico", kind="organisation")
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    moved = timezone.now() - timedelta(days=30)
    now = relation_add(user=alice, subject=rui, type="works_at", object=bank, valid_from=moved)
    before = relation_add(
        user=alice, subject=rui, type="works_at", object=firm,
        valid_from=timezone.now() - timedelta(days=900),
    )  # fmt: skip
    now.refresh_from_db()
    assert now.valid_to is None
    assert before.valid_to == moved and before.ended_by_id == now.pk
