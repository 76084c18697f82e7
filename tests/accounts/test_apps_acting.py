"""An app token acts for one of its people per request (user_id) and for no one else; the
tokens it issues act only as their person; history names the app and its token."""

from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from accounts.models import AppToken
from accounts.people import (
    app_create,
    app_set_disabled,
    app_token_create,
    app_token_revoke,
    person_create,
)
from memory.models import KnowledgeItem

ACME_PEOPLE = ("ana@example.com", "ben@example.com")


def bearer(secret: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


@pytest.fixture
def acme(db) -> APIClient:
    app = app_create(name="acme-support")
    token, secret = app_token_create(app=app, name="prod")
    for external_id in ACME_PEOPLE:
        person_create(app=app, external_id=external_id)
    client = bearer(secret)
    client.app, client.token, client.secret = app, token, secret
    return client


@pytest.fixture
def globex(db) -> APIClient:
    app = app_create(name="globex-tutor")
    _, secret = app_token_create(app=app, name="prod")
    person_create(app=app, external_id="carla@example.com")
    client = bearer(secret)
    client.app = app
    return client


def remember(client: APIClient, user_id: str, content: str) -> dict:
    made = client.post("/api/v1/memories/", {"user_id": user_id, "content": content}, format="json")
    assert made.status_code == 201, made.content
    return made.json()


def test_without_user_id_an_app_token_is_refused_on_memory_endpoints_with_the_reason(acme):
    for method, url in (
        ("get", "/api/v1/memories/"),
        ("post", "/api/v1/memories/"),
        ("post", "/api/v1/memories/search/"),
        ("get", "/api/v1/stats/"),
        ("get", "/api/v1/agents/"),
    ):
        answer = getattr(acme, method)(url, {"content": "x", "query": "x"}, format="json")
        assert answer.status_code == 403, (url, answer.content)
        assert "pass user_id" in answer.json()["error"]["message"]
    assert not KnowledgeItem.objects.exists()


@pytest.mark.cross_user("api-memories", "api-memory-search", "api-memory-detail")
def test_an_app_token_naming_another_apps_person_is_a_404_like_a_missing_one(acme, globex):
    carla = remember(globex, "carla@example.com", "Carla is studying for the bar exam")
    missing = acme.get("/api/v1/memories/?user_id=nobody%40example.com")
    assert missing.status_code == 404
    for method, url, body in (
        ("get", "/api/v1/memories/?user_id=carla%40example.com", None),
        ("post", "/api/v1/memories/", {"user_id": "carla@example.com", "content": "x"}),
        ("post", "/api/v1/memories/search/", {"user_id": "carla@example.com", "query": "exam"}),
        ("get", f"/api/v1/memories/{carla['id']}/?user_id=carla%40example.com", None),
        ("delete", f"/api/v1/memories/{carla['id']}/?user_id=carla%40example.com", None),
    ):
        answer = getattr(acme, method)(url, body, format="json")
        assert answer.status_code == 404, (url, answer.content)
        assert answer.json() == missing.json()
    # Acting for its own person, the app still cannot reach the other app's item by id.
    mine = acme.get(f"/api/v1/memories/{carla['id']}/?user_id=ana%40example.com")
    assert mine.status_code == 404
    assert KnowledgeItem.objects.get(pk=carla["id"]).forgotten_at is None


def test_a_revoked_app_token_and_a_disabled_apps_token_are_refused_401(acme):
    remember(acme, "ana@example.com", "Ana's order 5521 shipped on Monday")
    app_token_revoke(app=acme.app, token_id=acme.token.pk)
    answer = acme.get("/api/v1/memories/?user_id=ana%40example.com")
    assert answer.status_code == 401
    assert acme.get("/api/v1/people/").status_code == 401

    _, fresh = app_token_create(app=acme.app, name="fresh")
    client = bearer(fresh)
    assert client.get("/api/v1/memories/?user_id=ana%40example.com").status_code == 200
    app_set_disabled(app=acme.app, disabled=True)
    assert client.get("/api/v1/memories/?user_id=ana%40example.com").status_code == 401
    assert client.get("/api/v1/app/").status_code == 401
    app_set_disabled(app=acme.app, disabled=False)
    assert client.get("/api/v1/app/").status_code == 200


def test_the_token_scheme_also_carries_an_app_token_as_mem0s_sdk_sends_it(acme):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {acme.secret}")
    assert client.get("/api/v1/app/").json()["name"] == "acme-support"
    listed = client.get("/api/v1/memories/?user_id=ana%40example.com")
    assert listed.status_code == 200


@pytest.mark.cross_user("api-memories")
def test_a_person_token_issued_by_the_app_acts_only_as_that_person_until_the_app_revokes_it(
    acme,
):
    remember(acme, "ana@example.com", "Ana is allergic to peanuts")
    remember(acme, "ben@example.com", "Ben likes hiking in the Alps")
    issued = acme.post(
        f"/api/v1/people/{quote('ana@example.com')}/tokens/",
        {"name": "ana-phone", "agent": "phone-assistant"},
        format="json",
    ).json()
    ana = bearer(issued["secret"])

    listed = ana.get("/api/v1/memories/").json()["results"]
    assert [m["content"] for m in listed] == ["Ana is allergic to peanuts"]
    made = ana.post("/api/v1/memories/", {"content": "Ana moved to Lisbon"}, format="json")
    assert made.status_code == 201
    assert made.json()["agent"] == "phone-assistant"
    # A user_id does not turn a person token into anyone else's.
    other = ana.get("/api/v1/memories/?user_id=ben%40example.com").json()["results"]
    assert "Ben likes hiking in the Alps" not in [m["content"] for m in other]

    gone = acme.delete(f"/api/v1/people/{quote('ana@example.com')}/tokens/{issued['id']}/")
    assert gone.status_code == 204
    assert ana.get("/api/v1/memories/").status_code == 401
    tokens = acme.get(f"/api/v1/people/{quote('ana@example.com')}/tokens/").json()["results"]
    assert [(t["name"], t["usable"]) for t in tokens] == [("ana-phone", False)]


def test_history_of_a_write_through_the_app_names_the_app_and_its_token(acme):
    made = remember(acme, "ana@example.com", "Ana prefers the window seat")
    edited = acme.patch(
        f"/api/v1/memories/{made['id']}/",
        {"user_id": "ana@example.com", "content": "Ana prefers the aisle seat"},
        format="json",
    )
    assert edited.status_code == 200, edited.content
    history = acme.get(f"/api/v1/memories/{made['id']}/history/?user_id=ana%40example.com")
    assert history.status_code == 200, history.content
    entries = history.json()["results"]
    assert [e["content"] for e in entries] == [
        "Ana prefers the aisle seat",
        "Ana prefers the window seat",
    ]
    for entry in entries:
        assert entry["agent"] == "acme-support"
        assert entry["token"] == "acme-support/prod"
    assert AppToken.objects.get(pk=acme.token.pk).last_used_at is not None


def test_a_person_of_an_app_cannot_log_into_the_web_app(acme, client):
    person = acme.app.people.get(external_id="ana@example.com")
    assert not person.user.has_usable_password()
    for password in ("", "!", person.user.password):
        assert not client.login(username=person.user.username, password=password)
        page = client.post(
            "/login/", {"username": person.user.username, "password": password or "x"}
        )
        assert "_auth_user_id" not in client.session
        assert page.status_code in (200, 429)
