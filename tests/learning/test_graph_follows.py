"""The graph follows extraction's corrections and withdrawals as facts do: a relation a
memory gave ends when the memory no longer says it, kept and linked to the relation that
took its place; recall then no longer follows it. The model answers as local models do
(code fences, thinking blocks, prose around the JSON, odd casing)."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from conversations.services.recording import turn_append
from graph.models import Mention, Relation
from graph.services import entity_create, entity_holder, entity_link_items, relation_add
from learning import extraction, reconciliation
from memory.models import KnowledgeItem
from memory.recall import recall
from tests.learning import fake_llm as f
from tests.support import vector

pytestmark = pytest.mark.django_db


def said(user, text):
    return turn_append(user=user, session_id="s1", role="user", content=text)


def fenced(operations, thinking="The user changed something they told me before."):
    """How a local reasoning model answers: thinking, then fenced JSON in odd casing."""
    body = json.dumps({"Operations": operations}, indent=2)
    return f.content(f"<think>\n{thinking}\n</think>\n\nSure! Here you go:\n```JSON\n{body}\n```")


def learn(fake_llm, user, text, operations):
    turn = said(user, text)
    fake_llm.then(fenced(operations))
    result = extraction.extract_turn(turn_id=turn.pk)
    assert result.get("refused") == 0, result
    return turn


def item(user, text):
    return KnowledgeItem.objects.for_user(user).get(content=text)


def relation(user, subject, type_, obj):
    return Relation.objects.get(owner=user, subject__name=subject, type=type_, object__name=obj)


@pytest.fixture
def works_on_moss(fake_llm, alice):
    learn(fake_llm, alice, "I'm working on the Moss redesign these days", [
        {"OP": "Add", "Content": "User works on the Moss redesign", "Category": "fact",
         "Relations": [{"Subject": "USER", "Type": "Works On", "Object": "Moss",
                        "object_kind": "Project"}]},
    ])  # fmt: skip
    return item(alice, "User works on the Moss redesign")


def test_an_update_ends_the_relation_it_no_longer_states_linked_to_the_new_one(
    fake_llm, alice, works_on_moss
):
    moss = relation(alice, "me", "works_on", "Moss")
    assert moss.current and moss.item_ids == [works_on_moss.pk]
    learn(fake_llm, alice, "I moved off Moss, I'm on the Helix migration now", [
        {"op": "UPDATE", "knowledge_id": works_on_moss.pk,
         "content": "User works on the Helix migration",
         "relationships": [{"head": "user", "label": "WORKS_ON", "tail": "Helix"}]},
    ])  # fmt: skip
    moss.refresh_from_db()
    helix = relation(alice, "me", "works_on", "Helix")
    assert helix.current and helix.item_ids == [works_on_moss.pk]
    assert moss.valid_to is not None and moss.ended_by_id == helix.pk
    assert moss.item_ids == []  # the memory says Helix now: no longer where Moss came from
    # works_on holds many at once: only the correction ended Moss, nothing else would have
    assert Relation.objects.filter(owner=alice, valid_to__isnull=True).count() == 1


def test_moving_ends_where_the_person_lived_and_the_corrected_memory_leaves_it(fake_llm, alice):
    learn(fake_llm, alice, "I live in Porto, near the river", [
        {"op": "add", "content": "User lives in Porto", "relations": [
            {"subject": "User", "type": "lives_in", "object": "Porto", "object_kind": "city"}]},
    ])  # fmt: skip
    porto_item = item(alice, "User lives in Porto")
    learn(fake_llm, alice, "We moved to Lisbon last month!", [
        {"op": "update", "knowledge_id": porto_item.pk, "content": "User lives in Lisbon",
         "Relations": [{"from": "User", "relation": "Lives In", "to": "Lisbon"}]},
    ])  # fmt: skip
    porto = relation(alice, "me", "lives_in", "Porto")
    lisbon = relation(alice, "me", "lives_in", "Lisbon")
    assert porto.ended_by_id == lisbon.pk and not porto.current and lisbon.current
    assert porto.item_ids == [] and lisbon.item_ids == [porto_item.pk]


def test_an_update_without_relations_ends_one_whose_end_it_no_longer_names(fake_llm, alice):
    learn(fake_llm, alice, "Rui works at Atelier Norte", [
        {"op": "add", "content": "Rui works at Atelier Norte", "relations": [
            {"subject": "Rui", "type": "works_at", "object": "Atelier Norte"}]},
        {"op": "add", "content": "Rui is the user's partner", "relations": [
            {"subject": "User", "type": "partner_of", "object": "Rui"}]},
    ])  # fmt: skip
    job = item(alice, "Rui works at Atelier Norte")
    learn(
        fake_llm,
        alice,
        "Rui left the atelier, he's at Banco Atlântico now",
        [
            {"op": "update", "knowledge_id": job.pk, "content": "Rui works at Banco Atlântico"},
        ],
    )  # a model that gives no relations with its update
    atelier = relation(alice, "Rui", "works_at", "Atelier Norte")
    assert not atelier.current and atelier.ended_by is None
    assert relation(alice, "me", "partner_of", "Rui").current  # its memory said nothing new
    # The corrected memory is about Rui still, and no longer about the atelier.
    about = set(Mention.objects.filter(item_id=job.pk).values_list("entity__name", flat=True))
    assert about == {"Rui"}


def test_a_correction_that_still_names_both_ends_keeps_the_relation(fake_llm, alice, works_on_moss):
    learn(fake_llm, alice, "Moss is the redesign of the booking app, by the way", [
        {"op": "update", "knowledge_id": works_on_moss.pk,
         "content": "User works on Moss, the redesign of the booking app"},
    ])  # fmt: skip
    moss = relation(alice, "me", "works_on", "Moss")
    assert moss.current and moss.item_ids == [works_on_moss.pk]


def test_a_withdrawn_memory_ends_its_relation_and_my_partner_no_longer_leads_there(fake_llm, alice):
    learn(fake_llm, alice, "My partner Rui designs public libraries", [
        {"op": "add", "content": "User's partner is Rui", "relations": [
            {"subject": "User", "type": "partner_of", "object": "Rui", "object_kind": "person"}]},
        {"op": "add", "content": "Rui designs public libraries", "entities": ["Rui"]},
    ])  # fmt: skip
    before = recall(user=alice, query="What does my partner do?", top_k=3, min_relevance=0)
    assert any(h.via == "my partner is Rui" for h in before)
    partner = item(alice, "User's partner is Rui")
    learn(fake_llm, alice, "Rui and I split up in the spring.", [
        {"op": "Delete", "knowledge_id": partner.pk, "reason": "they separated"},
    ])  # fmt: skip
    ended = relation(alice, "me", "partner_of", "Rui")
    assert not ended.current and ended.ended_by is None
    assert ended.item_ids == [partner.pk]  # where it came from (the item is retracted)
    after = recall(user=alice, query="What does my partner do?", top_k=3, min_relevance=0)
    assert not any("my partner" in h.via for h in after)


def test_a_relation_another_live_memory_still_gives_keeps_holding(fake_llm, alice):
    learn(fake_llm, alice, "I'm on the Helix team", [
        {"op": "add", "content": "User is a member of the Helix team", "relations": [
            {"subject": "User", "type": "member_of", "object": "Helix"}]},
        {"op": "add", "content": "User has the Helix standup at 9:30", "relations": [
            {"subject": "User", "type": "member_of", "object": "Helix"}]},
    ])  # fmt: skip
    member = item(alice, "User is a member of the Helix team")
    learn(fake_llm, alice, "Actually I'm not formally a member, I just join the standups", [
        {"op": "delete", "knowledge_id": member.pk, "reason": "not a member"},
    ])  # fmt: skip
    helix = relation(alice, "me", "member_of", "Helix")
    standup = item(alice, "User has the Helix standup at 9:30")
    assert helix.current and set(helix.item_ids) == {member.pk, standup.pk}


def test_reconciliation_replacing_a_memory_links_its_relation_to_the_new_ones(fake_llm, alice):
    me = entity_holder(user=alice)
    older = KnowledgeItem.objects.create(owner=alice, content="User works on Moss")
    newer = KnowledgeItem.objects.create(owner=alice, content="User works on Helix now")
    KnowledgeItem.objects.filter(pk=older.pk).update(
        embedding=vector(1, 0, 0), embedding_model="m1",
        created_at=timezone.now() - timedelta(days=30),
    )  # fmt: skip
    KnowledgeItem.objects.filter(pk=newer.pk).update(
        embedding=vector(0.95, 0.1, 0), embedding_model="m1"
    )
    moss = entity_create(user=alice, name="Moss", kind="project")
    helix = entity_create(user=alice, name="Helix", kind="project")
    old = relation_add(user=alice, subject=me, type="works_on", object=moss, item_ids=[older.pk])
    new = relation_add(user=alice, subject=me, type="works_on", object=helix, item_ids=[newer.pk])
    fake_llm.then(f.content('```json\n{"Judgements": [{"Pair": 0, "Outcome": "Contradict"}]}\n```'))
    assert reconciliation.reconcile_user(user=alice)["contradict"] == 1
    old.refresh_from_db()
    assert old.ended_by_id == new.pk and old.valid_to is not None


def test_another_persons_relations_never_follow(fake_llm, alice, bob, works_on_moss):
    bobs = relation_add(
        user=bob,
        subject=entity_holder(user=bob),
        type="works_on",
        object=entity_create(user=bob, name="Moss", kind="project"),
        item_ids=[works_on_moss.pk],  # even naming alice's item id
    )
    learn(fake_llm, alice, "I left the Moss project last week.", [
        {"op": "delete", "knowledge_id": works_on_moss.pk, "reason": "left the project"},
    ])  # fmt: skip
    bobs.refresh_from_db()
    assert bobs.current
    assert not relation(alice, "me", "works_on", "Moss").current


def test_a_link_made_by_hand_that_the_text_never_named_stays_after_a_correction(
    fake_llm, alice, works_on_moss
):
    lead = entity_create(user=alice, name="Marta", kind="person")  # she leads Moss, unsaid
    entity_link_items(user=alice, entity=lead, item_ids=[works_on_moss.pk])
    learn(fake_llm, alice, "Correction: it's the Moss rewrite, not a redesign", [
        {"op": "update", "knowledge_id": works_on_moss.pk,
         "content": "User works on the Moss rewrite"},
    ])  # fmt: skip
    about = Mention.objects.filter(item_id=works_on_moss.pk).values_list("entity__name", flat=True)
    assert set(about) == {"Moss", "Marta"}
