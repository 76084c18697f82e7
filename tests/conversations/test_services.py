from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from accounts.services import user_settings_update
from conversations.models import Session, Turn
from conversations.services import recording
from conversations.services.recording import tool_call_record, turn_append, turns_append_many
from tests.commits import rows_per_commit

pytestmark = pytest.mark.django_db


def test_it_creates_the_session_on_first_use_and_keeps_caller_timestamps(alice):
    turn = turn_append(
        user=alice,
        session_id="chat-1",
        role="user",
        content="Hi there",
        timestamp="2023-05-08T13:56:00+00:00",
        speaker="Caroline",
    )
    assert turn.session.session_id == "chat-1" and turn.speaker == "Caroline"
    assert turn.timestamp == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    turn_append(user=alice, session_id="chat-1", role="assistant", content="Hello")
    assert Session.objects.for_user(alice).count() == 1


def test_sessions_with_the_same_id_are_separate_per_user(alice, bob):
    a = turn_append(user=alice, session_id="same", role="user", content="alice")
    b = turn_append(user=bob, session_id="same", role="user", content="bob")
    assert a.session_id != b.session_id


def test_it_marks_long_user_turns_for_extraction_only(alice):
    long = turn_append(
        user=alice, session_id="s", role="user", content="I moved to Lisbon last spring"
    )
    short = turn_append(user=alice, session_id="s", role="user", content="ok thanks")
    reply = turn_append(
        user=alice, session_id="s", role="assistant", content="That is a lovely city to live in"
    )
    assert [long.extraction_status, short.extraction_status, reply.extraction_status] == [
        "pending",
        "",
        "",
    ]
    user_settings_update(user=alice, auto_extract=False)
    off = turn_append(user=alice, session_id="s", role="user", content="I adopted a dog named Rex")
    assert off.extraction_status == ""


def test_it_validates_roles_content_and_truncates(alice):
    with pytest.raises(ValidationError):
        turn_append(user=alice, session_id="s", role="robot", content="x")
    with pytest.raises(ValidationError):
        turn_append(user=alice, session_id="s", role="user", content="")
    with pytest.raises(ValidationError):
        turn_append(user=alice, session_id="", role="user", content="x")
    turn = turn_append(user=alice, session_id="s", role="user", content="y" * 5000)
    assert len(turn.content) == 4000


def test_batch_turns_are_stored_in_order_or_not_at_all(alice):
    with pytest.raises(ValidationError):
        turns_append_many(
            user=alice,
            turns=[
                {"session_id": "s", "role": "user", "content": "one"},
                {"session_id": "s", "role": "nobody", "content": "two"},
            ],
        )
    assert not Turn.objects.exists()
    stored = turns_append_many(
        user=alice,
        turns=[
            {"session_id": "s", "role": "user", "content": "one"},
            {"session_id": "s", "role": "assistant", "content": "two"},
        ],
    )
    assert [t.content for t in stored] == ["one", "two"]


@pytest.mark.django_db(transaction=True)
def test_a_large_batch_of_turns_is_validated_whole_then_written_in_short_transactions(
    alice, monkeypatch
):
    """Another writer never waits for a whole batch: each transaction holds one chunk."""
    monkeypatch.setattr(recording, "TURN_CHUNK", 5, raising=False)
    monkeypatch.setattr(recording, "TURN_CHUNK_MAX", 10, raising=False)
    entries = [{"session_id": f"s{n % 3}", "role": "assistant", "content": f"Turn {n}"}
               for n in range(40)]  # fmt: skip
    with pytest.raises(ValidationError):  # a bad last entry: nothing at all is stored
        turns_append_many(user=alice, turns=[*entries, {"session_id": "s", "role": "x"}])
    assert not Turn.objects.exists()

    with rows_per_commit(Turn) as sizes:
        stored = turns_append_many(user=alice, turns=entries)

    assert [t.content for t in stored] == [e["content"] for e in entries]
    assert sum(sizes) == 40 and len(sizes) >= 4 and max(sizes) <= 10


def test_tool_calls_are_recorded_with_their_outcome(alice):
    call = tool_call_record(
        user=alice,
        tool_name="web_search",
        session_id="s",
        args={"q": "x"},
        success=False,
        error="timeout",
        duration_ms=1200,
    )
    assert call.session.session_id == "s" and call.error == "timeout" and not call.success
    with pytest.raises(ValidationError):
        tool_call_record(user=alice, tool_name="x", duration_ms=-1)
    with pytest.raises(ValidationError):
        tool_call_record(user=alice, tool_name="")


def test_an_unknown_keyword_is_named_as_turn_appends_own(alice):
    with pytest.raises(
        TypeError, match=r"^turn_append\(\) got unexpected keyword arguments: mood$"
    ):
        turn_append(user=alice, session_id="s1", role="user", content="Hi", mood="happy")
    assert not Turn.objects.filter(owner=alice).exists()
