"""No LLM configured: nothing attempted, backlog kept and shown, processed later."""

import pytest

from conversations.services.recording import turn_append
from core.server import health
from learning import extraction
from learning.llm.status import llm_stats
from learning.schedules import startup_sweeps
from memory.models import KnowledgeItem
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


def pending_turn(user):
    return turn_append(
        user=user, session_id="s", role="user", content="I started learning the cello this winter"
    )


def test_stats_and_health_show_the_backlog_as_a_state_not_an_error(no_llm, alice):
    turn = pending_turn(alice)
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "waiting"
    block = llm_stats(user=alice)
    assert block["configured"] is False and block["state"] == "not configured"
    assert block["backlog"] == {"turns_pending": 1, "sessions_awaiting_consolidation": 0}
    assert block["failures_total"] == 0
    check = health.run_all()["llm"]
    assert check["ok"] is True and check["state"] == "not configured"
    assert check["backlog"]["turns_pending"] == 1


def test_the_backlog_is_processed_once_an_llm_is_configured(
    no_llm, llm_settings, alice, monkeypatch
):
    turn = pending_turn(alice)
    assert extraction.extraction_sweep() == 0
    server = f.FakeLLM().then(
        f.answer(
            {
                "operations": [
                    {"op": "add", "category": "skill", "content": "User is learning the cello"}
                ]
            }
        )
    )
    try:
        llm_settings.GAIA_LLM_URL = server.url
        queued = []
        monkeypatch.setattr(
            "django_q.tasks.async_task", lambda func, *a, **k: queued.append((func, a))
        )
        # the sweep only takes turns no on-commit task had a chance to finish
        monkeypatch.setattr(extraction, "SWEEP_MIN_AGE_SECONDS", -60)
        assert extraction.extraction_sweep() == 1
        assert queued == [("learning.tasks.extract_turn", (turn.pk,))]
        from learning.tasks import extract_turn

        assert extract_turn(turn.pk)["added"] == 1
    finally:
        server.close()
    assert KnowledgeItem.objects.for_user(alice).get().content == "User is learning the cello"
    assert llm_stats(user=alice)["backlog"]["turns_pending"] == 0


def test_health_reports_an_open_circuit_as_not_ok(fake_llm, llm_settings, alice):
    llm_settings.GAIA_LLM_BREAKER_THRESHOLD = 1
    llm_settings.GAIA_LLM_RETRIES = 0
    fake_llm.then(f.status(500))
    extraction.extract_turn(turn_id=pending_turn(alice).pk)
    check = health.run_all()["llm"]
    assert check["ok"] is False and check["state"] == "circuit open"
    assert check["failures_last_hour"] == 1
    assert (
        check["last_failure"]["kind"] == "server_error" and "message" not in check["last_failure"]
    )
    block = llm_stats(user=alice)
    assert block["failures"] == {"server_error": 1} and block["state"] == "circuit open"


def test_startup_queues_the_sweeps(monkeypatch):
    queued, chained = [], []
    monkeypatch.setattr("django_q.tasks.async_task", lambda func, *a, **k: queued.append(func))
    monkeypatch.setattr("django_q.tasks.async_chain", lambda chain: chained.extend(chain))
    startup_sweeps()
    assert queued == [
        "learning.tasks.extract_pending_sweep",
        "memory.tasks.imports_resume",
        "webhooks.tasks.deliver_due",
    ]
    assert [func for func, _, _ in chained] == [
        "learning.tasks.decay_all",
        "learning.tasks.reconcile_all",
        "learning.tasks.consolidate_sweep",
        "privacy.tasks.prune_all",
    ]
