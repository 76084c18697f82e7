"""Outages in plain sight: the model's state is shared by every process, /health/ says
"degraded" while it fails and "ok" once it answers again, and the dashboard says so."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from conversations.services.recording import turn_append
from learning import extraction, llm
from learning.models import LLMState
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db


@pytest.fixture
def health(alice_api):
    """/health/ as an agent with a token sees it (anonymous callers get the status only)."""

    def get() -> dict:
        body = alice_api.get("/api/v1/health/").json()
        assert body["status"] == Client().get("/api/v1/health/").json()["status"]
        return body

    return get


def user_turn(user):
    return turn_append(
        user=user, session_id="s1", role="user", content="I moved to Lisbon with my dog Rex"
    )


def test_health_is_degraded_during_an_outage_and_ok_again_after(
    fake_llm, llm_settings, alice, health
):
    llm_settings.GAIA_LLM_BREAKER_THRESHOLD = 2
    before = health()
    assert before["checks"]["llm"]["ok"] is True and before["checks"]["llm"]["state"] == "ok"
    turn = user_turn(alice)

    fake_llm.then(f.status(503))
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "retry later"
    during = health()
    assert during["status"] == "degraded"
    assert during["checks"]["llm"]["ok"] is False
    assert during["checks"]["llm"]["state"] == "failing"
    assert during["checks"]["llm"]["last_kind"] == "server_error"
    assert during["checks"]["llm"]["since"]

    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "retry later"
    llm.clients_clear()  # the web process never built a client or called the model
    assert health()["checks"]["llm"]["state"] == "circuit open"
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "waiting"  # fails fast

    fake_llm.then(f.answer({"operations": [{"op": "add", "content": "User has a dog"}]}))
    LLMState.objects.update(open_until=timezone.now() - timedelta(seconds=1))  # cool-down over
    assert health()["checks"]["llm"]["state"] == "recovering"
    assert extraction.extract_turn(turn_id=turn.pk)["status"] == "done"
    after = health()
    assert after["checks"]["llm"]["ok"] is True and after["checks"]["llm"]["state"] == "ok"
    assert after["status"] == before["status"]


def test_the_sweep_probes_a_failing_model_so_its_state_recovers_without_work(
    fake_llm, llm_settings, health
):
    fake_llm.then(f.status(500))
    assert llm.get_llm().probe() is False
    assert health()["checks"]["llm"]["state"] == "failing"
    fake_llm.then(f.answer({"ok": True}))
    assert extraction.extraction_sweep() == 0  # nothing to queue: the model is probed
    assert health()["checks"]["llm"]["state"] == "ok"


def test_a_healthy_model_is_not_probed_by_the_sweep(fake_llm):
    extraction.extraction_sweep()
    assert fake_llm.requests == []


def test_the_dashboard_says_the_model_is_failing_and_that_nothing_is_lost(
    fake_llm, alice, llm_settings
):
    client = Client()
    client.force_login(alice)
    assert b"The language model is" not in client.get(reverse("web-dashboard")).content
    turn = user_turn(alice)
    fake_llm.then(f.status(500))
    extraction.extract_turn(turn_id=turn.pk)
    page = client.get(reverse("web-dashboard")).content.decode()
    assert "The language model is failing" in page
    assert "1 turn waits and will be tried again" in page
    session_page = client.get(reverse("web-session-detail", args=[turn.session_id]))
    assert "waiting for the model (next try" in session_page.content.decode()


def test_bad_answers_do_not_count_as_an_outage(fake_llm, alice, health):
    fake_llm.then(f.content("no json"))
    extraction.extract_turn(turn_id=user_turn(alice).pk)
    assert health()["checks"]["llm"]["state"] == "ok"  # reachable, just not useful
