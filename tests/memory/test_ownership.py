import pytest
from django.contrib.auth.models import AnonymousUser

from conversations.models import ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from memory import services
from memory.models import KnowledgeItem
from privacy import services as privacy_services

pytestmark = pytest.mark.django_db


def test_for_user_returns_only_the_users_rows(alice, bob):
    services.memory_create(user=alice, content="Alice fact")
    services.memory_create(user=bob, content="Bob fact")
    turn_append(user=alice, session_id="s1", role="user", content="hello from alice")
    turn_append(user=bob, session_id="s1", role="user", content="hello from bob")
    tool_call_record(user=bob, tool_name="search")
    assert [i.content for i in KnowledgeItem.objects.for_user(alice)] == ["Alice fact"]
    assert [t.content for t in Turn.objects.for_user(bob)] == ["hello from bob"]
    assert ToolCall.objects.for_user(alice).count() == 0


def test_for_user_returns_nothing_for_anonymous_or_missing_users(alice):
    services.memory_create(user=alice, content="Alice fact")
    assert KnowledgeItem.objects.for_user(AnonymousUser()).count() == 0
    assert KnowledgeItem.objects.for_user(None).count() == 0


def test_another_users_id_behaves_like_a_missing_one(alice, bob):
    item = services.memory_create(user=alice, content="Alice fact")
    for action in (
        services.memory_get,
        services.memory_forget,
        services.memory_restore,
        privacy_services.memory_erase,
    ):
        with pytest.raises(KnowledgeItem.DoesNotExist):
            action(user=bob, item_id=item.pk)
        with pytest.raises(KnowledgeItem.DoesNotExist):
            action(user=bob, item_id=999_999)
    item.refresh_from_db()
    assert item.forgotten_at is None
