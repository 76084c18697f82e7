"""API tokens page: create (secret shown once), list with last use, expiry, revoke."""

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import AgentType, ApiToken
from accounts.services import token_authenticate, token_create

pytestmark = pytest.mark.django_db


def test_it_shows_the_create_form_and_an_empty_state(alice_web):
    response = alice_web.get("/tokens/")
    assert response.status_code == 200
    assert b"No tokens yet" in response.content
    assert b"Create token" in response.content


def test_creating_a_token_shows_its_secret_once(alice_web, alice):
    response = alice_web.post("/tokens/", {"name": "laptop-assistant", "expires_in": ""})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    secret = response.context["secret"]
    assert secret.startswith("gaia_")
    html = response.content.decode()
    assert f'value="{secret}"' in html and 'data-copy="#new-token"' in html
    token = token_authenticate(secret)
    assert token.owner == alice and token.name == "laptop-assistant" and token.expires_at is None
    again = alice_web.get("/tokens/")
    assert secret not in again.content.decode()
    assert b"laptop-assistant" in again.content and token.prefix.encode() in again.content


def test_a_token_can_expire(alice_web, alice):
    alice_web.post("/tokens/", {"name": "short-lived", "expires_in": "30"})
    token = ApiToken.objects.for_user(alice).get()
    assert timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)


def test_creating_needs_a_name(alice_web, alice):
    response = alice_web.post("/tokens/", {"name": "", "expires_in": ""})
    assert response.status_code == 200
    assert response.context["secret"] is None
    assert b"This field is required" in response.content
    assert not ApiToken.objects.for_user(alice).exists()


def test_the_list_shows_last_use_expiry_and_status(alice_web, alice):
    used, secret = token_create(user=alice, name="used-one")
    token_authenticate(secret)
    expired, _ = token_create(
        user=alice, name="old-one", expires_at=timezone.now() - timedelta(days=1)
    )
    html = alice_web.get("/tokens/").content.decode()
    assert "just now" in html  # last used
    assert "expired" in html
    assert f'action="/tokens/{used.pk}/revoke/"' in html
    assert f'action="/tokens/{expired.pk}/revoke/"' not in html


def test_revoking_stops_the_token_at_once(alice_web, alice):
    token, secret = token_create(user=alice, name="agent")
    response = alice_web.post(f"/tokens/{token.pk}/revoke/", follow=True)
    assert response.redirect_chain[-1][0] == "/tokens/"
    assert b"revoked" in response.content
    assert token_authenticate(secret) is None
    assert alice_web.get(f"/tokens/{token.pk}/revoke/").status_code == 405


@pytest.mark.cross_user("web-token-list")
def test_the_list_never_shows_another_users_tokens(alice_web, bob):
    token_create(user=bob, name="bobs-agent")
    response = alice_web.get("/tokens/")
    assert list(response.context["tokens"]) == []
    assert b"bobs-agent" not in response.content


@pytest.mark.cross_user("web-token-revoke")
def test_another_users_token_cannot_be_revoked(alice_web, bob):
    token, secret = token_create(user=bob, name="bobs-agent")
    assert alice_web.post(f"/tokens/{token.pk}/revoke/").status_code == 404
    assert token_authenticate(secret) is not None


def test_a_token_for_a_named_agent_and_the_agents_default_context(alice_web, alice):
    alice_web.post("/tokens/", {"name": "laptop", "agent": "mail-assistant", "expires_in": ""})
    alice_web.post("/tokens/", {"name": "phone", "agent": "mail-assistant", "expires_in": ""})
    page = alice_web.get("/tokens/")
    assert [a.name for a in page.context["agents"]] == ["mail-assistant"]
    html = page.content.decode()
    assert html.count('<td data-label="Agent">mail-assistant</td>') == 2  # both act as it
    agent = page.context["agents"][0]
    saved = alice_web.post(f"/agents/{agent.pk}/", {"default_context": "work"}, follow=True)
    assert "now writes to “work” by default" in saved.content.decode()
    agent.refresh_from_db()
    assert agent.default_context == "work"


@pytest.mark.cross_user("web-agent-edit")
def test_another_users_agent_cannot_be_changed(alice_web, bob):
    token, _ = token_create(user=bob, name="bobs-agent")
    response = alice_web.post(f"/agents/{token.agent_id}/", {"default_context": "alice"})
    assert response.status_code == 404
    token.agent.refresh_from_db()
    assert token.agent.default_context == "global"
    assert b"bobs-agent" not in alice_web.get("/tokens/").content


def test_an_agent_becomes_an_instance_of_a_registered_type(alice_web, alice):
    AgentType.objects.create(name="gmail_agent")
    token, _ = token_create(user=alice, name="laptop", agent_name="mail")
    page = alice_web.get("/tokens/").content.decode()
    assert '<option value="gmail_agent">gmail_agent</option>' in page
    done = alice_web.post(
        f"/agents/{token.agent_id}/",
        {"default_context": "global", "agent_type": "gmail_agent"},
        follow=True,
    )
    assert "type “gmail_agent”" in done.content.decode()
    token.agent.refresh_from_db()
    assert token.agent.agent_type.name == "gmail_agent"
    bad = alice_web.post(f"/agents/{token.agent_id}/", {"agent_type": "nope"}, follow=True)
    assert "No such agent type." in bad.content.decode()


def test_a_bad_default_context_is_refused_with_a_message_and_nothing_changes(alice_web, alice):
    token, _ = token_create(user=alice, name="laptop", agent_name="mail")
    page = alice_web.post(f"/agents/{token.agent_id}/", {"default_context": "x" * 101}, follow=True)
    assert "Not saved: default_context" in page.content.decode()
    token.agent.refresh_from_db()
    assert token.agent.default_context == "global"
