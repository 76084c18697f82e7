from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from accounts.services import user_settings_update
from conversations.services.recording import turn_append
from memory import lineage, services
from memory.models import KnowledgeItem, MemoryVersion
from privacy import services as privacy_services

pytestmark = pytest.mark.django_db


def test_it_stores_an_item_with_the_source_default_confidence(alice):
    item = services.memory_create(
        user=alice, content="Alice prefers dark roast coffee", category="preference"
    )
    assert item.pk and item.deduplicated is False
    assert item.confidence == pytest.approx(0.7)
    assert item.context == "global" and item.source == "tool"
    user_item = services.memory_create(user=alice, content="Works at AMD", source="user")
    assert user_item.confidence == pytest.approx(0.8)


def test_it_rejects_empty_content(alice):
    with pytest.raises(ValidationError) as error:
        services.memory_create(user=alice, content="   ")
    assert "content" in error.value.message_dict


def test_it_truncates_content_to_2000_characters(alice):
    item = services.memory_create(user=alice, content="x" * 2500)
    assert item.content == "x" * 2000


def test_it_rejects_unknown_categories_and_bad_confidence(alice):
    with pytest.raises(ValidationError):
        services.memory_create(user=alice, content="x y z", category="gossip")
    with pytest.raises(ValidationError):
        services.memory_create(user=alice, content="x y z", confidence=1.5)


@pytest.mark.parametrize(
    "text",
    [
        "my key is sk-abcdefghijklmnopqrstuvwx",
        "token ghp_abcdefghijklmnopqrstuvwxyz0123",
        "AWS AKIAABCDEFGHIJKLMNOP for prod",
        "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6",
        "the wifi password is hunter2",
        "-----BEGIN RSA PRIVATE KEY----- abc",
    ],
)
def test_it_refuses_credentials(alice, text):
    with pytest.raises(ValidationError) as error:
        services.memory_create(user=alice, content=text)
    assert error.value.message_dict["content"][0].startswith("Refused")
    assert not KnowledgeItem.objects.exists()


def test_it_refuses_privileged_categories_from_automatic_sources(alice):
    with pytest.raises(ValidationError):
        services.memory_create(
            user=alice, content="You are admin", category="permission", source="llm_extract"
        )
    item = services.memory_create(
        user=alice, content="Name: Alice", category="profile", source="user"
    )
    assert item.category == "profile"


def test_it_folds_a_rewrite_that_says_the_same_in_the_same_scope(alice):
    first = services.memory_create(user=alice, content="Alice likes green tea", confidence=0.9)
    second = services.memory_create(user=alice, content="alice LIKES green-tea!", confidence=0.5)
    assert second.pk == first.pk and second.deduplicated is True
    assert second.outcome == "deduplicated"
    first.refresh_from_db()
    assert first.content == "alice LIKES green-tea!"
    assert first.confidence == pytest.approx(0.9)
    assert KnowledgeItem.objects.count() == 1


def test_it_keeps_a_user_source_when_merging(alice):
    services.memory_create(user=alice, content="Lives in Berlin Germany", source="user")
    merged = services.memory_create(user=alice, content="Lives in Berlin, Germany", source="tool")
    assert merged.deduplicated and merged.source == "user"


def test_it_does_not_merge_across_scopes_or_low_overlap(alice):
    services.memory_create(user=alice, content="Alice likes green tea")
    other_context = services.memory_create(
        user=alice, content="Alice likes green tea", context="work"
    )
    other_entity = services.memory_create(
        user=alice, content="Alice likes green tea", entity="person:alice"
    )
    different = services.memory_create(user=alice, content="Alice hates cold black coffee")
    assert not any(i.deduplicated for i in (other_context, other_entity, different))
    assert KnowledgeItem.objects.count() == 4


def test_it_never_merges_into_another_users_item(alice, bob):
    services.memory_create(user=alice, content="Likes green tea")
    bobs = services.memory_create(user=bob, content="Likes green tea")
    assert bobs.deduplicated is False
    assert KnowledgeItem.objects.for_user(bob).count() == 1


def test_it_normalises_due_at_to_an_aware_time(alice):
    user_settings_update(user=alice, timezone="Europe/Berlin")
    item = services.memory_create(
        user=alice, content="Dentist", category="reminder", due_at="2026-03-27T09:00:00"
    )
    item.refresh_from_db()
    assert item.due_at == datetime(2026, 3, 27, 8, 0, tzinfo=UTC)
    with pytest.raises(ValidationError):
        services.memory_create(user=alice, content="Dentist", due_at="next tuesday")


def test_update_changes_only_given_fields_and_clears_the_embedding(alice):
    item = services.memory_create(user=alice, content="Uses vim", domain="tools")
    KnowledgeItem.objects.filter(pk=item.pk).update(embedding=b"\0" * 8, embedding_model="m")
    updated = services.memory_update(user=alice, item_id=item.pk, content="Uses neovim")
    assert updated.content == "Uses neovim" and updated.domain == "tools"
    assert updated.embedding is None and updated.embedding_model == ""
    reminded = services.memory_update(user=alice, item_id=item.pk, reminded_at="now")
    assert reminded.reminded_at is not None


def test_update_refuses_unknown_fields_and_other_users_items(alice, bob):
    item = services.memory_create(user=alice, content="Uses vim")
    with pytest.raises(ValidationError):
        services.memory_update(user=alice, item_id=item.pk, owner=bob)
    with pytest.raises(KnowledgeItem.DoesNotExist):
        services.memory_update(user=bob, item_id=item.pk, content="hijacked")
    item.refresh_from_db()
    assert item.content == "Uses vim"


def test_supersede_corrects_in_place_and_keeps_the_old_text_as_a_version(alice):
    old = services.memory_create(user=alice, content="Works at Intel", entity="person:alice")
    new = lineage.memory_supersede(
        user=alice, item_id=old.pk, content="Works at AMD", source="llm_extract"
    )
    assert new.pk == old.pk
    assert new.entity == "person:alice" and new.source == "llm_extract"
    assert list(KnowledgeItem.objects.for_user(alice).active()) == [new]
    [version] = MemoryVersion.objects.for_user(alice).filter(item=new)
    assert (version.content, version.source, version.change_source) == (
        "Works at Intel",
        "tool",
        "llm_extract",
    )
    services.memory_forget(user=alice, item_id=new.pk)
    with pytest.raises(ValidationError):
        lineage.memory_supersede(user=alice, item_id=old.pk, content="x", source="llm_extract")


def test_forget_hides_and_restore_brings_back_exactly(alice):
    item = services.memory_create(user=alice, content="Has a cat named Miso", entity="pet:miso")
    before = KnowledgeItem.objects.values().get(pk=item.pk)
    services.memory_forget(user=alice, item_id=item.pk)
    assert not KnowledgeItem.objects.for_user(alice).active().exists()
    services.memory_restore(user=alice, item_id=item.pk)
    assert KnowledgeItem.objects.values().get(pk=item.pk) == before


def test_erase_removes_the_row_and_its_full_text_entry(alice):
    from memory.corpus import KNOWLEDGE_FTS
    from retrieval import keyword

    item = services.memory_create(user=alice, content="Secret project zanzibar")
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
    assert keyword.search(KNOWLEDGE_FTS, "zanzibar", where, 5) == [
        (item.pk, pytest.approx(keyword.search(KNOWLEDGE_FTS, "zanzibar", where, 5)[0][1]))
    ]
    privacy_services.memory_erase(user=alice, item_id=item.pk)
    assert not KnowledgeItem.objects.filter(pk=item.pk).exists()
    assert keyword.search(KNOWLEDGE_FTS, "zanzibar", where, 5) == []


def test_bulk_forget_filters_and_dry_run(alice):
    services.memory_create(user=alice, content="Sprint goal alpha", context="work")
    services.memory_create(user=alice, content="Buy milk", context="home")
    assert services.memory_forget_bulk(user=alice, context="work", dry_run=True) == 1
    assert KnowledgeItem.objects.for_user(alice).active().count() == 2
    assert services.memory_forget_bulk(user=alice, context="work") == 1
    assert [i.content for i in KnowledgeItem.objects.for_user(alice).active()] == ["Buy milk"]
    assert services.memory_forget_bulk(user=alice, older_than="30d") == 0
    with pytest.raises(ValidationError):
        services.memory_forget_bulk(user=alice, older_than="soon")
    with pytest.raises(ValidationError):
        services.memory_forget_bulk(user=alice)


def test_batch_create_is_all_or_nothing(alice):
    with pytest.raises(ValidationError) as error:
        services.memory_create_many(user=alice, items=[{"content": "ok"}, {"content": ""}])
    assert "1" in error.value.message_dict
    assert not KnowledgeItem.objects.exists()
    stored = services.memory_create_many(
        user=alice, items=[{"content": "one fact"}, {"content": "another thing"}]
    )
    assert [i.content for i in stored] == ["one fact", "another thing"]


def test_touch_bumps_confidence_use_count_and_last_used_in_one_query(
    alice, django_assert_num_queries
):
    item = services.memory_create(user=alice, content="Likes jazz", confidence=0.99)
    services.memory_touch(user=alice, item_ids=[item.pk])  # the day's usage rows now exist
    # One query for the item, one for the day's usage counts (stats: searches, used).
    with django_assert_num_queries(2):
        assert services.memory_touch(user=alice, item_ids=[item.pk]) == 1
    item.refresh_from_db()
    assert item.confidence == pytest.approx(1.0) and item.use_count == 2 and item.last_used


def test_memory_disabled_refuses_agent_writes_but_not_people(alice):
    user_settings_update(user=alice, memory_enabled=False)
    with pytest.raises(ValidationError):
        services.memory_create(user=alice, content="agent write")
    assert services.memory_create(user=alice, content="typed by a person", source="user").pk


def test_writes_bump_the_index_generation(alice):
    from memory.changes import items_generation

    start = items_generation(alice.pk)
    item = services.memory_create(user=alice, content="Plays chess")
    services.memory_forget(user=alice, item_id=item.pk)
    assert items_generation(alice.pk) == start + 2


def test_an_item_links_only_to_a_turn_of_its_owner(alice, bob):
    bobs = turn_append(user=bob, session_id="s", role="user", content="Bob lives in Oslo now")
    alices = turn_append(user=alice, session_id="s", role="user", content="I live in Porto")
    for given in (bobs, bobs.pk, 10**12):
        with pytest.raises(ValidationError) as error:
            services.memory_create(user=alice, content="Lives in Oslo", source_turn=given)
        assert error.value.message_dict == {"source_turn": ["No such turn."]}
    with pytest.raises(ValidationError) as error:
        services.memory_create_many(user=alice, items=[{"content": "x", "source_turn": bobs.pk}])
    assert "No such turn." in str(error.value)
    assert not KnowledgeItem.objects.filter(owner=alice).exists()
    item = services.memory_create(user=alice, content="Lives in Porto", source_turn=alices.pk)
    assert item.source_turn_id == alices.pk


def test_a_supersession_links_only_to_a_turn_of_its_owner(alice, bob):
    bobs = turn_append(user=bob, session_id="s", role="user", content="Bob lives in Oslo now")
    old = services.memory_create(user=alice, content="Lives in Lisbon")
    with pytest.raises(ValidationError):
        lineage.memory_supersede(
            user=alice, item_id=old.pk, content="Lives in Oslo", source="tool", source_turn=bobs
        )
    old.refresh_from_db()
    assert old.is_active
