"""Erasure takes the graph with it: a person's erase removes their entities, aliases and
relations; an item's erase removes it from every relation and entity naming it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from graph.models import Alias, Entity, Mention, Relation
from graph.services import entity_create, entity_holder, entity_link_items, relation_add
from memory.models import KnowledgeItem
from memory.services import memory_create
from privacy.retention import prune_user
from privacy.services import memory_erase, memory_erase_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_erasing_a_person_removes_their_graph_and_leaves_anothers(alice, bob):
    item = memory_create(user=alice, content="Rui works at Atelier Norte in Porto")
    rui = entity_create(user=alice, name="Rui", kind="person", aliases=["my partner"])
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    relation_add(user=alice, subject=rui, type="works_at", object=firm, item_ids=[item.pk])
    relation_add(user=alice, subject=entity_holder(user=alice), type="partner_of", object=rui)
    bobs = entity_create(user=bob, name="Rui", kind="person")
    assert memory_erase_user(user=alice, dry_run=True)["relations"] == 2
    counts = memory_erase_user(user=alice)
    assert counts["entities"] == 3 and counts["relations"] == 2
    for model in (Entity, Alias, Mention, Relation):
        assert not model.objects.filter(owner=alice).exists()
    assert Entity.objects.filter(pk=bobs.pk).exists()


def test_erasing_an_item_takes_it_out_of_every_relation_and_entity(alice):
    said = memory_create(user=alice, content="Rui moved from Atelier Norte to a bank")
    kept = memory_create(user=alice, content="Rui has worked at Atelier Norte since 2019")
    rui = entity_create(user=alice, name="Rui", kind="person")
    firm = entity_create(user=alice, name="Atelier Norte", kind="organisation")
    entity_link_items(user=alice, entity=rui, item_ids=[said.pk, kept.pk])
    works = relation_add(
        user=alice, subject=rui, type="works_at", object=firm, item_ids=[said.pk, kept.pk]
    )
    memory_erase(user=alice, item_id=said.pk)
    works.refresh_from_db()
    assert works.item_ids == [kept.pk]
    assert list(Mention.objects.filter(owner=alice).values_list("item_id", flat=True)) == [kept.pk]


def test_an_item_pruned_by_retention_leaves_no_id_behind_in_the_graph(alice):
    weak = memory_create(user=alice, content="Rui may have joined a choir", confidence=0.05)
    kept = memory_create(user=alice, content="Rui sings in the Porto city choir")
    long_ago = timezone.now() - timedelta(days=400)
    KnowledgeItem.objects.filter(pk=weak.pk).update(created_at=long_ago, updated_at=long_ago)
    rui = entity_create(user=alice, name="Rui", kind="person")
    choir = entity_create(user=alice, name="Porto city choir", kind="organisation")
    entity_link_items(user=alice, entity=rui, item_ids=[weak.pk, kept.pk])
    sings = relation_add(
        user=alice, subject=rui, type="member_of", object=choir, item_ids=[weak.pk, kept.pk]
    )
    assert prune_user(user=alice)["knowledge"] == 1
    sings.refresh_from_db()
    assert sings.item_ids == [kept.pk]
    assert list(Mention.objects.filter(owner=alice).values_list("item_id", flat=True)) == [kept.pk]
