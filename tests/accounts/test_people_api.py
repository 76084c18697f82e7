"""The people API: an app token creates, lists, reads and erases its own people by their
external id, and issues and revokes their tokens; another app's people are a 404."""

from types import SimpleNamespace
from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.test import APIClient, APIRequestFactory

from accounts.auth import AppPrincipal, BearerTokenAuthentication
from accounts.models import ApiToken, AppPerson
from accounts.people import app_create, app_token_create, person_create
from conversations.models import Turn
from core.api.conventions import TokenRateThrottle
from core.api.views import request_body, request_query
from memory.models import KnowledgeItem, MemoryVersion


def app_client(name: str) -> APIClient:
    app = app_create(name=name)
    _, secret = app_token_create(app=app, name="prod")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    client.app = app
    return client


def person_url(user_id: str, rest: str = "") -> str:
    return f"/api/v1/people/{quote(user_id, safe='')}/{rest}"


@pytest.fixture
def acme(db) -> APIClient:
    return app_client("acme-support")


@pytest.fixture
def globex(db) -> APIClient:
    return app_client("globex-tutor")


def test_it_creates_a_person_once_and_answers_the_existing_one_after(acme):
    first = acme.post(
        "/api/v1/people/",
        {"user_id": "cust-1042", "metadata": {"plan": "pro"}},
        format="json",
    )
    assert first.status_code == 201, first.content
    assert first.json()["user_id"] == "cust-1042"
    assert first.json()["metadata"] == {"plan": "pro"}
    again = acme.post(
        "/api/v1/people/", {"user_id": "cust-1042", "metadata": {"plan": "free"}}, format="json"
    )
    assert again.status_code == 200
    assert again.json()["metadata"] == {"plan": "pro"}
    assert AppPerson.objects.filter(app=acme.app).count() == 1


def test_it_refuses_a_person_without_an_id_or_with_unknown_fields(acme):
    assert acme.post("/api/v1/people/", {}, format="json").status_code == 400
    blank = acme.post("/api/v1/people/", {"user_id": "   "}, format="json")
    assert blank.status_code == 400
    extra = acme.post("/api/v1/people/", {"user_id": "u1", "is_staff": True}, format="json")
    assert extra.status_code == 400
    assert "is_staff" in extra.json()["error"]["fields"]
    assert not AppPerson.objects.exists()


@pytest.mark.parametrize(
    "external_id", ["ana.lopez@example.com", "Ana López", "tenant 7/user 12", "50% off?#x"]
)
def test_ids_with_spaces_at_signs_dots_and_slashes_reach_their_person(acme, external_id):
    assert acme.post("/api/v1/people/", {"user_id": external_id}, format="json").status_code == 201
    found = acme.get(person_url(external_id))
    assert found.status_code == 200, found.content
    assert found.json()["user_id"] == external_id
    issued = acme.post(person_url(external_id, "tokens/"), {"name": "phone"}, format="json")
    assert issued.status_code == 201
    listed = acme.get(person_url(external_id, "tokens/"))
    assert [t["name"] for t in listed.json()["results"]] == ["phone"]
    assert acme.delete(person_url(external_id)).status_code == 200
    assert acme.get(person_url(external_id)).status_code == 404


def test_the_list_pages_the_apps_people_oldest_first(acme):
    for n in range(3):
        person_create(app=acme.app, external_id=f"student-{n}")
    page = acme.get("/api/v1/people/?page_size=2").json()
    assert page["count"] == 3
    assert [p["user_id"] for p in page["results"]] == ["student-0", "student-1"]
    rest = acme.get("/api/v1/people/?page_size=2&page=2").json()
    assert [p["user_id"] for p in rest["results"]] == ["student-2"]


@pytest.mark.cross_user(
    "api-people", "api-person-detail", "api-person-tokens", "api-person-token-detail"
)
def test_an_app_never_lists_reads_erases_or_issues_tokens_for_another_apps_people(acme, globex):
    person_create(app=acme.app, external_id="shared-id")
    person_create(app=acme.app, external_id="only-acme")
    acme_token = acme.post(person_url("only-acme", "tokens/"), {"name": "watch"}, format="json")
    token_id = acme_token.json()["id"]
    missing = globex.get(person_url("never-existed"))

    assert globex.get("/api/v1/people/").json()["results"] == []
    foreign = globex.get(person_url("only-acme"))
    assert foreign.status_code == 404
    assert foreign.json() == missing.json()
    assert globex.delete(person_url("only-acme")).status_code == 404
    assert globex.get(person_url("only-acme", "tokens/")).status_code == 404
    refused = globex.post(person_url("only-acme", "tokens/"), {"name": "x"}, format="json")
    assert refused.status_code == 404
    revoke = globex.delete(person_url("only-acme", f"tokens/{token_id}/"))
    assert revoke.status_code == 404
    assert ApiToken.objects.get(pk=token_id).revoked_at is None

    # The same external id in another app is another person: creating it is no access.
    made = globex.post("/api/v1/people/", {"user_id": "shared-id"}, format="json")
    assert made.status_code == 201
    ids = set(AppPerson.objects.filter(external_id="shared-id").values_list("user_id", flat=True))
    assert len(ids) == 2
    assert AppPerson.objects.filter(app=acme.app).count() == 2


@pytest.mark.cross_user("api-person-token-detail")
def test_a_token_id_of_another_person_of_the_same_app_is_a_404(acme):
    person_create(app=acme.app, external_id="ana")
    person_create(app=acme.app, external_id="ben")
    ana_token = acme.post(person_url("ana", "tokens/"), {"name": "laptop"}, format="json").json()
    assert acme.delete(person_url("ben", f"tokens/{ana_token['id']}/")).status_code == 404
    assert ApiToken.objects.get(pk=ana_token["id"]).revoked_at is None


@pytest.mark.cross_user("api-app")
def test_the_app_endpoint_names_the_caller_and_only_its_own_tokens(acme, globex):
    person_create(app=acme.app, external_id="p1")
    me = acme.get("/api/v1/app/").json()
    assert me["name"] == "acme-support"
    assert me["people"] == 1
    assert me["token"]["name"] == "prod"
    assert [t["name"] for t in me["tokens"]] == ["prod"]
    assert "secret" not in str(me)
    other = globex.get("/api/v1/app/").json()
    assert other["name"] == "globex-tutor"
    assert other["people"] == 0


def test_a_person_token_is_refused_on_the_apps_own_endpoints(acme, alice_api):
    person_create(app=acme.app, external_id="p1")
    issued = acme.post(person_url("p1", "tokens/"), {"name": "phone"}, format="json").json()
    holder = APIClient()
    holder.credentials(HTTP_AUTHORIZATION=f"Bearer {issued['secret']}")
    for client in (holder, alice_api):
        assert client.get("/api/v1/people/").status_code == 403
        assert client.get("/api/v1/app/").status_code == 403
        assert client.get(person_url("p1")).status_code == 403


def test_erasing_a_person_removes_their_memory_their_turns_and_their_account(acme):
    person, _ = person_create(app=acme.app, external_id="leaving@example.com")
    keeper, _ = person_create(app=acme.app, external_id="staying@example.com")
    for who in ("leaving@example.com", "staying@example.com"):
        made = acme.post(
            "/api/v1/memories/",
            {"user_id": who, "content": f"{who} prefers email over phone calls"},
            format="json",
        )
        assert made.status_code == 201, made.content
        edited = acme.patch(
            f"/api/v1/memories/{made.json()['id']}/?user_id={quote(who)}",
            {"content": f"{who} prefers email, never phone calls"},
            format="json",
        )
        assert edited.status_code == 200, edited.content
        logged = acme.post(
            "/api/v1/conversations/turns/",
            {
                "user_id": who,
                "session_id": "support-chat-1",
                "role": "user",
                "content": "Please do not call me.",
            },
            format="json",
        )
        assert logged.status_code == 201, logged.content
    acme.post(person_url("leaving@example.com", "tokens/"), {"name": "phone"}, format="json")
    user_pk = person.user.pk

    erased = acme.delete(person_url("leaving@example.com"))

    assert erased.status_code == 200, erased.content
    body = erased.json()
    assert body["user_id"] == "leaving@example.com"
    assert body["erased"]["knowledge"] == 1
    assert body["erased"]["turns"] == 1
    assert body["erased"]["account"] == 1
    assert not get_user_model().objects.filter(pk=user_pk).exists()
    for model in (KnowledgeItem, MemoryVersion, Turn, ApiToken):
        assert not model.objects.filter(owner_id=user_pk).exists()
    assert KnowledgeItem.objects.filter(owner=keeper.user).count() == 1
    assert Turn.objects.filter(owner=keeper.user).count() == 1
    assert acme.get(person_url("leaving@example.com")).status_code == 404
    # The id is free again: a new person, with nothing of the old one.
    assert (
        acme.post("/api/v1/people/", {"user_id": "leaving@example.com"}, format="json").status_code
        == 201
    )
    listed = acme.get("/api/v1/memories/?user_id=leaving%40example.com")
    assert listed.json()["results"] == []


@pytest.mark.redis  # the rate counters live in the cache
def test_an_app_tokens_requests_count_against_its_own_rate_not_a_person_tokens(
    acme, alice_api, monkeypatch
):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"token": "3/min"})
    cache.clear()
    answers = [acme.get("/api/v1/app/").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert acme.get("/api/v1/people/").status_code == 429
    assert alice_api.get("/api/v1/memories/").status_code == 200
    token = acme.app.tokens.get()
    request = SimpleNamespace(auth=token, user=AppPrincipal(token))
    key = TokenRateThrottle().get_cache_key(request, None)
    assert key == f"throttle_token_app{token.pk}"  # never t<pk>: that is an ApiToken's
    cache.clear()


def test_acting_for_a_person_sets_only_user_and_auth_and_user_id_is_no_field_of_the_operation(
    db,
):
    app = app_create(name="acme-acting")
    _, secret = app_token_create(app=app, name="prod")
    person, _ = person_create(app=app, external_id="cust-7")
    factory = APIRequestFactory()
    wsgi = factory.post(
        "/api/v1/memories/?user_id=cust-7&context=work",
        {"user_id": "cust-7", "content": "Prefers email"},
        format="json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    request = Request(wsgi, parsers=[JSONParser()])
    user, token = BearerTokenAuthentication().authenticate(request)
    assert user == person.user and token.app_token.app == app
    assert token.request_keys == ("user_id",)
    # Nothing of the request was changed: the operation reads it without the person's id.
    assert request.query_params["user_id"] == "cust-7" and request.data["user_id"] == "cust-7"
    request.user, request.auth = user, token
    assert request_query(request) == {"context": "work"}
    assert request_body(request) == {"content": "Prefers email"}
    own = ApiToken.objects.create(owner=person.user, name="own", prefix="x", key_hash="h" * 64)
    request.auth = own  # a person's own token: user_id would be a field of its own
    assert own.request_keys == () and request_body(request)["user_id"] == "cust-7"
