"""Extraction of a user turn: exact memory state after good and bad LLM answers."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import user_settings_update
from conversations.models import Turn
from conversations.services.recording import turn_append
from learning import extraction
from learning.llm.counters import llm_counts
from memory.models import KnowledgeItem
from memory.services import memory_create
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


def user_turn(user, text="I moved from Berlin to Lisbon last spring with my dog Rex"):
    return turn_append(user=user, session_id="s1", role="user", content=text)


def items(user):
    return KnowledgeItem.objects.for_user(user).order_by("pk")


def test_add_update_and_delete_are_applied_with_lineage_and_source_turn(fake_llm, alice):
    berlin = memory_create(user=alice, content="User lives in Berlin", source="user")
    dog = memory_create(user=alice, content="User has a dog called Rex, a beagle")
    cat = memory_create(user=alice, content="User has a cat in Berlin", source="user")
    untouched = memory_create(user=alice, content="User likes Berlin techno clubs")
    turn = user_turn(alice)
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {
                        "op": "add",
                        "category": "fact",
                        "content": "User moved to Lisbon in spring",
                        "entity": "place:lisbon",
                    },
                    {"op": "update", "knowledge_id": berlin.pk, "content": "User lives in Lisbon"},
                    {
                        "op": "delete",
                        "knowledge_id": cat.pk,
                        "reason": "the cat stayed with a friend",
                    },
                ]
            }
        )
    )

    result = extraction.extract_turn(turn_id=turn.pk)

    assert result == {
        "status": "done",
        "added": 1,
        "updated": 1,
        "deleted": 1,
        "unchanged": 0,
        "skipped": 0,
        "refused": 0,
    }
    turn.refresh_from_db()
    assert turn.extraction_status == "done"
    berlin.refresh_from_db(), cat.refresh_from_db()
    lisbon = berlin  # corrected in place: the id stays, the old text is a version
    assert lisbon.content == "User lives in Lisbon" and lisbon.is_active
    assert lisbon.source == "llm_extract" and lisbon.source_turn_id == turn.pk
    assert lisbon.confidence == 0.8  # keeps the confidence of what it corrects
    assert [v.content for v in lisbon.versions.all()] == ["User lives in Berlin"]
    assert cat.forgotten_at is not None and "the cat stayed" in cat.content
    assert [v.content for v in cat.versions.all()] == ["User has a cat in Berlin"]
    added = items(alice).get(content="User moved to Lisbon in spring")
    assert (added.source, added.confidence, added.entity, added.source_turn_id) == (
        "llm_extract",
        0.4,
        "place:lisbon",
        turn.pk,
    )
    active = set(items(alice).active().values_list("content", flat=True))
    assert active == {
        "User lives in Lisbon",
        "User moved to Lisbon in spring",
        dog.content,
        untouched.content,
    }
    assert items(alice).count() == 5  # 4 originals (one corrected, one retracted) + added


def test_the_model_sees_the_relevant_memories_and_the_steering(fake_llm, alice):
    berlin = memory_create(user=alice, content="User lives in Berlin")
    user_settings_update(user=alice, extraction_steering="Only keep facts about pets.")
    extraction.extract_turn(turn_id=user_turn(alice).pk)
    system, prompt = (m["content"] for m in fake_llm.requests[0]["messages"])
    assert "Only keep facts about pets." in system
    assert f'"knowledge_id": {berlin.pk}' in prompt
    assert "Lisbon" in prompt


def test_one_bad_operation_fails_alone(fake_llm, alice, bob):
    bobs = memory_create(user=bob, content="Bob lives in Berlin")
    turn = user_turn(alice)
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {
                        "op": "add",
                        "category": "permission",
                        "content": "User may run shell commands",
                    },
                    {"op": "update", "knowledge_id": bobs.pk, "content": "hijacked"},
                    {"op": "add", "content": "My api key is sk-abcdefghijklmnopqrstuvwx"},
                    {"op": "explode"},
                    {"op": "add"},
                    {"op": "add", "category": "fact", "content": "User has a dog named Rex"},
                ]
            }
        )
    )
    result = extraction.extract_turn(turn_id=turn.pk)
    assert result["added"] == 1 and result["refused"] == 5
    assert list(items(alice).values_list("content", "category")) == [
        ("User has a dog named Rex", "fact")
    ]
    bobs.refresh_from_db()
    assert bobs.content == "Bob lives in Berlin" and bobs.is_active
    assert llm_counts(user=alice)["failures"] == {"operation_refused": 5}


@pytest.mark.parametrize(
    "step, kind",
    [
        (f.content("not json at all"), "invalid_json"),
        (f.answer({"thoughts": "nothing to add"}), "schema"),
        (f.content('{"operations": [{"op": "add", "content": "User li', "length"), "invalid_json"),
        (f.raw_200(b"y" * 100_000), "too_large"),
        (f.raw_200(b"<html>oops</html>"), "bad_response"),
    ],
    ids=["non-json", "wrong-schema", "truncated", "huge", "html"],
)
def test_an_unusable_answer_fails_the_turn_and_writes_nothing(fake_llm, alice, step, kind):
    memory_create(user=alice, content="User lives in Berlin")
    turn = user_turn(alice)
    fake_llm.then(step)
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "failed"
    turn.refresh_from_db()
    assert turn.extraction_status == "failed" and turn.extraction_error.startswith(kind)
    assert list(items(alice).values_list("content", flat=True)) == ["User lives in Berlin"]
    assert llm_counts(user=alice)["failures"] == {kind: 1}


@pytest.mark.parametrize(
    "step",
    [f.status(500), f.status(429, headers={"Retry-After": "1"}), f.silent(10)],
    ids=["500", "429", "silent"],
)
def test_an_unreachable_server_keeps_the_turn_pending_with_back_off_until_the_period_ends(
    fake_llm, llm_settings, alice, step
):
    llm_settings.GAIA_EXTRACTION_RETRY_HOURS = 24
    turn = user_turn(alice)
    fake_llm.then(step)
    before = timezone.now()
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "retry later"
    turn.refresh_from_db()
    assert (turn.extraction_status, turn.extraction_attempts) == ("pending", 1)
    assert turn.extraction_retry_at >= before + timedelta(minutes=1)
    first_failure = turn.extraction_failing_since
    assert first_failure >= before

    # Three hours into the outage: still pending, the next try waits longer.
    Turn.objects.filter(pk=turn.pk).update(extraction_failing_since=before - timedelta(hours=3))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "retry later"
    turn.refresh_from_db()
    assert turn.extraction_status == "pending"
    assert turn.extraction_retry_at >= before + timedelta(hours=1)  # at most an hour

    # The period is over: the turn ends failed and says why.
    Turn.objects.filter(pk=turn.pk).update(extraction_failing_since=before - timedelta(hours=25))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "failed"
    turn.refresh_from_db()
    assert turn.extraction_status == "failed" and "tried again for 24 h" in turn.extraction_error
    assert items(alice).count() == 0
    assert llm_counts(user=alice)["failures_total"] == 3


def test_the_sweep_waits_for_a_turns_back_off(fake_llm, llm_settings, alice, monkeypatch):
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: queued.append(a[0]))
    turn = user_turn(alice)
    Turn.objects.filter(pk=turn.pk).update(created_at=timezone.now() - timedelta(minutes=10))
    fake_llm.then(f.status(500))
    extraction.extract_turn(turn_id=turn.pk)
    turn.refresh_from_db()
    assert extraction.extraction_sweep(now=turn.extraction_retry_at - timedelta(seconds=1)) == 0
    assert extraction.extraction_sweep(now=turn.extraction_retry_at) == 1
    assert queued == [turn.pk]


def test_a_refused_connection_keeps_the_turn_pending(refused_url, llm_settings, alice):
    llm_settings.GAIA_LLM_URL = refused_url
    turn = user_turn(alice)
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "retry later"
    assert Turn.objects.get(pk=turn.pk).extraction_status == "pending"
    assert llm_counts(user=alice)["failures"] == {"connect": 1}


def test_an_open_circuit_does_not_use_up_attempts(fake_llm, llm_settings, alice):
    llm_settings.GAIA_LLM_BREAKER_THRESHOLD = 1
    llm_settings.GAIA_LLM_RETRIES = 0
    first, second = user_turn(alice), user_turn(alice, "My sister Ana lives in Porto now")
    fake_llm.then(f.status(500))
    extraction.extract_turn(turn_id=first.pk)
    assert extraction.extract_turn(turn_id=second.pk)["status"] == "waiting"
    second.refresh_from_db()
    assert (second.extraction_status, second.extraction_attempts) == ("pending", 0)


def test_running_twice_applies_once(fake_llm, alice):
    turn = user_turn(alice)
    fake_llm.then(f.answer({"operations": [{"op": "add", "content": "User has a dog named Rex"}]}))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "done"
    assert extraction.extract_turn(turn_id=turn.pk) == {"status": "not pending"}
    assert len(fake_llm.requests) == 1 and items(alice).count() == 1


def test_two_workers_with_the_same_answer_apply_it_once(fake_llm, alice):
    turn = user_turn(alice)
    ops = [{"op": "add", "content": "User adopted a parrot called Kiwi"}]
    assert extraction.apply_operations(turn=turn, items=[], operations=ops)["status"] == "done"
    again = extraction.apply_operations(turn=turn, items=[], operations=ops)
    assert again == {"status": "not pending"}
    assert items(alice).count() == 1


def test_a_worker_killed_before_commit_leaves_nothing_and_the_rerun_applies_once(
    fake_llm, alice, monkeypatch
):
    berlin = memory_create(user=alice, content="User lives in Berlin")
    turn = user_turn(alice)
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {"op": "update", "knowledge_id": berlin.pk, "content": "User lives in Lisbon"},
                    {"op": "add", "content": "User has a dog named Rex"},
                ]
            }
        )
    )
    real = extraction._apply_one
    calls = []

    def dies_on_second(*args):
        calls.append(1)
        if len(calls) == 2:
            raise SystemExit("worker killed")  # not an Exception: nothing catches it
        return real(*args)

    monkeypatch.setattr(extraction, "_apply_one", dies_on_second)
    with pytest.raises(SystemExit):
        extraction.extract_turn(turn_id=turn.pk)
    turn.refresh_from_db(), berlin.refresh_from_db()
    assert turn.extraction_status == "pending" and berlin.is_active
    assert list(items(alice).values_list("content", flat=True)) == ["User lives in Berlin"]

    monkeypatch.setattr(extraction, "_apply_one", real)
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "done"
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "not pending"
    assert sorted(items(alice).active().values_list("content", flat=True)) == [
        "User has a dog named Rex",
        "User lives in Lisbon",
    ]
    assert items(alice).count() == 2


def test_memory_turned_off_skips_the_turn_without_asking(fake_llm, alice):
    turn = user_turn(alice)
    user_settings_update(user=alice, memory_enabled=False)
    assert extraction.extract_turn(turn_id=turn.pk) == {"status": "skipped"}
    assert fake_llm.requests == [] and items(alice).count() == 0


def test_only_pending_user_turns_of_five_words_are_queued_on_commit(
    fake_llm, alice, monkeypatch, django_capture_on_commit_callbacks
):
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: queued.append((func, a)))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        turn = user_turn(alice)
        turn_append(user=alice, session_id="s1", role="user", content="ok thanks")
        turn_append(
            user=alice,
            session_id="s1",
            role="assistant",
            content="That is a lovely city to live in",
        )
    assert queued == []  # nothing runs before the commit
    for callback in callbacks:
        callback()
    assert queued == [("learning.tasks.extract_turn", (turn.pk,))]


def test_nothing_is_queued_without_an_llm(
    no_llm, alice, monkeypatch, django_capture_on_commit_callbacks
):
    queued = []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: queued.append(func))
    with django_capture_on_commit_callbacks(execute=True):
        turn = user_turn(alice)
    assert queued == [] and turn.extraction_status == "pending"


def test_an_update_that_changes_nothing_leaves_the_item_alone(fake_llm, alice):
    berlin = memory_create(user=alice, content="User lives in Berlin")
    turn = user_turn(alice, "I still live in Berlin and love it here")
    fake_llm.then(
        f.answer(
            {
                "operations": [
                    {"op": "update", "knowledge_id": berlin.pk, "content": "User lives in Berlin"}
                ]
            }
        )
    )
    assert extraction.extract_turn(turn_id=turn.pk)["unchanged"] == 1
    assert list(items(alice)) == [berlin] and items(alice).get().is_active
