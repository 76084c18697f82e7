"""Dedup by meaning (memory/dedup.py): a fold only for the same statement, a link for a
possible conflict, and folds that keep versions."""

import pytest

from accounts.services import token_create
from conversations.services.recording import turn_append
from memory import lineage, services
from memory.models import KnowledgeItem, MemoryVersion
from memory.versions import item_history

pytestmark = pytest.mark.django_db


def test_four_of_five_shared_words_is_a_new_fact_linked_as_a_possible_conflict(alice):
    platform = services.memory_create(user=alice, content="Sarah leads the platform team")
    mobile = services.memory_create(user=alice, content="Sarah leads the mobile team")

    assert not mobile.deduplicated and mobile.pk != platform.pk
    assert (mobile.outcome, mobile.conflicts_with_id) == ("conflict", platform.pk)
    active = KnowledgeItem.objects.for_user(alice).active()
    assert set(active.values_list("content", flat=True)) == {
        "Sarah leads the platform team",
        "Sarah leads the mobile team",
    }


def test_four_of_five_in_one_batch_is_two_facts_too(alice):
    stored = services.memory_create_many(
        user=alice,
        items=[{"content": "Sarah leads the platform team"},
               {"content": "Sarah leads the mobile team"}],
    )  # fmt: skip
    assert [i.deduplicated for i in stored] == [False, False]
    assert stored[1].conflicts_with_id == stored[0].pk


def test_a_fold_that_changes_the_text_keeps_the_old_text_as_a_version(alice):
    first = services.memory_create(user=alice, content="Alice drives a blue car to work")
    folded = services.memory_create(
        user=alice, content="alice drives a blue car to work.", source="llm_extract"
    )

    assert folded.deduplicated and folded.pk == first.pk
    assert folded.content == "alice drives a blue car to work."
    [version] = MemoryVersion.objects.for_user(alice).filter(item=first)
    assert (version.content, version.change_source, version.source) == (
        "Alice drives a blue car to work",
        "llm_extract",
        "tool",
    )


def test_a_batch_fold_into_a_stored_item_keeps_one_version_of_what_was_stored(alice):
    first = services.memory_create(user=alice, content="Bob plays chess on Sundays")
    services.memory_create_many(
        user=alice,
        items=[{"content": "bob plays chess on Sundays"},
               {"content": "Bob plays chess on Sunday."}],
    )  # fmt: skip
    assert [v.content for v in MemoryVersion.objects.filter(item=first)] == [
        "Bob plays chess on Sundays"
    ]


def test_a_repeat_with_the_same_text_keeps_no_version(alice):
    services.memory_create(user=alice, content="Likes jazz")
    again = services.memory_create(user=alice, content="Likes jazz")
    assert again.deduplicated and not MemoryVersion.objects.exists()


def test_a_correction_from_a_conversation_names_the_agent_whose_turn_it_came_from(alice):
    token, _ = token_create(user=alice, name="kitchen-speaker")
    item = services.memory_create(user=alice, content="User lives in Porto", token=token)
    turn = turn_append(
        user=alice, session_id="s1", role="user", content="I moved to Lisbon", agent=token.agent
    )
    lineage.memory_supersede(
        user=alice, item_id=item.pk, content="User lives in Lisbon", source="llm_extract",
        source_turn=turn,
    )  # fmt: skip
    item.refresh_from_db()
    [current, first] = item_history(user=alice, item=item)
    assert (current.content, current.source, current.agent) == (
        "User lives in Lisbon",
        "llm_extract",
        "kitchen-speaker",
    )
    assert (first.content, first.agent, first.token) == (
        "User lives in Porto",
        "kitchen-speaker",
        "kitchen-speaker",
    )
