from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import token_create, token_revoke
from core.api.conventions import TokenRateThrottle
from memory.api.account import ImportView
from memory.models import KnowledgeItem
from tests.support import assert_error
from tests.test_architecture import api_patterns

pytestmark = pytest.mark.django_db
PUBLIC = {"api-health", "api-schema", "api-docs"}
DUMMY = {
    "id": 1,
    "string": "session-x",
    "slug": "session-x",
    "path": "x",
    "uuid": "00000000-0000-0000-0000-000000000000",
}


def private_api_urls() -> list[tuple[str, str]]:
    """Every api-* URL except the public ones, with dummy path arguments."""
    urls = []
    for name, pattern in api_patterns():
        if name in PUBLIC:
            continue
        kwargs = {
            key: DUMMY[type(conv).__name__.replace("Converter", "").lower()]
            for key, conv in pattern.pattern.converters.items()
        }
        urls.append((name, reverse(name, kwargs=kwargs)))
    return urls


@pytest.mark.parametrize(("name", "url"), private_api_urls())
def test_every_api_url_answers_401_without_a_valid_token(name, url, alice):
    for header in (None, "Bearer", "Bearer a b", "Bearer gaia_wrong", "Basic YTpi", "Token x"):
        client = APIClient()
        if header:
            client.credentials(HTTP_AUTHORIZATION=header)
        for method in ("get", "post", "patch", "delete"):
            response = getattr(client, method)(url, {}, format="json")
            assert_error(response, 401)
            assert response["WWW-Authenticate"] == "Bearer"


def test_revoked_expired_and_deactivated_tokens_get_401(alice, alice_api):
    url = "/api/v1/memories/"
    assert alice_api.get(url).status_code == 200
    token = ApiToken.objects.for_user(alice).get()
    token_revoke(user=alice, token_id=token.pk)
    assert_error(alice_api.get(url), 401, "authentication_failed")

    _, secret = token_create(user=alice, name="old", expires_at=timezone.now() - timedelta(1))
    expired = APIClient(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert_error(expired.get(url), 401)

    _, secret = token_create(user=alice, name="fresh")
    fresh = APIClient(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert fresh.get(url).status_code == 200
    alice.is_active = False
    alice.save()
    assert_error(fresh.get(url), 401)


@pytest.mark.redis  # the counters live in the cache
def test_throttling_limits_each_token_separately(alice, bob_api, monkeypatch):
    monkeypatch.setattr(TokenRateThrottle, "THROTTLE_RATES", {"token": "3/min"})
    _, secret = token_create(user=alice, name="busy")
    busy = APIClient(HTTP_AUTHORIZATION=f"Bearer {secret}")
    for _ in range(3):
        assert busy.get("/api/v1/stats/").status_code == 200
    response = busy.get("/api/v1/stats/")
    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    assert bob_api.get("/api/v1/stats/").status_code == 200


def test_an_oversized_body_is_refused_with_413_before_anything_is_stored(
    alice, alice_api, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = alice_api.post("/api/v1/memories/", {"content": "x" * 2000}, format="json")
    assert_error(response, 413, "too_large")
    assert KnowledgeItem.objects.for_user(alice).count() == 0
    small = alice_api.post("/api/v1/memories/", {"content": "x" * 100}, format="json")
    assert small.status_code == 201


def test_the_import_has_its_own_larger_body_limit(alice_api, settings, monkeypatch):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    header = b'{"type": "header", "format": "gaia-memory-export", "version": 1}\n'
    body = header + b'{"type": "knowledge", "content": "' + b"y" * 500 + b'"}\n'
    response = alice_api.post("/api/v1/import/", body, content_type="application/x-ndjson")
    assert response.status_code == 200
    monkeypatch.setattr(ImportView, "max_body_bytes", 200)
    response = alice_api.post("/api/v1/import/", body, content_type="application/x-ndjson")
    assert_error(response, 413)


def test_unknown_api_urls_answer_in_the_error_shape(alice_api):
    assert_error(alice_api.get("/api/v1/no-such-thing/"), 404, "not_found")
    assert_error(alice_api.get("/api/v1/memories/abc/"), 404)


def test_a_web_session_without_a_csrf_token_gets_403_in_the_error_shape(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get("/api/v1/memories/").status_code == 200
    response = client.post("/api/v1/memories/", {"content": "x"}, format="json")
    assert_error(response, 403, "permission_denied")
    assert not KnowledgeItem.objects.exists()
