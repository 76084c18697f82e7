"""A failed tool call becomes an error item; a later success retires it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import token_create
from conversations.services.recording import tool_call_record
from learning.tool_errors import tool_errors_sync
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db


def errors(user, active=True):
    items = KnowledgeItem.objects.for_user(user).filter(category="error")
    return items.active() if active else items


def test_a_failure_becomes_an_error_item_and_a_later_success_retires_it(alice, queued):
    tool_call_record(user=alice, tool_name="Web_Search", success=False, error="timeout after 30s")
    assert queued == [("learning.tasks.tool_errors_sync", (alice.pk, "Web_Search"))]
    tool_errors_sync(user_id=alice.pk, tool_name="Web_Search")
    item = errors(alice).get()
    assert (item.content, item.source, item.entity, item.confidence) == (
        "Tool Web_Search failed: timeout after 30s",
        "error_auto",
        "tool:web_search",
        0.5,
    )
    tool_errors_sync(user_id=alice.pk, tool_name="Web_Search")
    assert errors(alice).count() == 1  # idempotent

    queued.clear()
    tool_call_record(user=alice, tool_name="Web_Search", success=True)
    assert queued == [("learning.tasks.tool_errors_sync", (alice.pk, "Web_Search"))]
    assert tool_errors_sync(user_id=alice.pk, tool_name="Web_Search")["status"] == "retired"
    assert errors(alice).count() == 0
    assert errors(alice, active=False).get().forgotten_at is not None  # soft, restorable


def test_successes_queue_nothing_when_no_error_is_known(alice, queued):
    tool_call_record(user=alice, tool_name="calc", success=True)
    assert queued == []


def test_the_latest_call_decides_even_when_tasks_run_out_of_order(alice, queued):
    now = timezone.now()
    tool_call_record(
        user=alice,
        tool_name="calc",
        success=False,
        error="division by zero",
        timestamp=now - timedelta(minutes=1),
    )
    tool_call_record(user=alice, tool_name="calc", success=True, timestamp=now)
    tool_errors_sync(user_id=alice.pk, tool_name="calc")  # the failure's task, running late
    assert errors(alice).count() == 0


def test_credentials_in_an_error_are_masked_and_never_stored(alice, queued):
    call = tool_call_record(
        user=alice,
        tool_name="deploy",
        success=False,
        error="auth failed for key sk-abcdefghijklmnopqrstuvwxyz123",
    )
    tool_errors_sync(user_id=alice.pk, tool_name="deploy")
    assert "sk-abc" not in call.error
    assert errors(alice).get().content == (
        "Tool deploy failed: auth failed for key [secret masked: API key (sk-...)]"
    )


def test_user_written_error_items_are_left_alone(alice, bob, queued):
    from memory.services import memory_create

    mine = memory_create(
        user=alice, content="calc is flaky", category="error", entity="tool:calc", source="user"
    )
    tool_call_record(user=bob, tool_name="calc", success=False, error="boom")
    tool_errors_sync(user_id=bob.pk, tool_name="calc")
    tool_call_record(user=alice, tool_name="calc", success=True)
    tool_errors_sync(user_id=alice.pk, tool_name="calc")
    assert errors(alice).get() == mine
    assert errors(bob).count() == 1


def test_the_lesson_is_the_agent_of_the_failed_call(alice, queued):
    token, _ = token_create(user=alice, name="laptop", agent_name="mail-assistant")
    tool_call_record(user=alice, tool_name="send_mail", success=False, error="SMTP 550",
                     agent=token.agent)  # fmt: skip
    tool_errors_sync(user_id=alice.pk, tool_name="send_mail")
    assert errors(alice).get().agent == token.agent
