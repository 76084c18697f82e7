import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone
from django_q.models import OrmQ
from rest_framework.test import APIClient

from core.server import health, health_checks
from memory import services

pytestmark = pytest.mark.django_db


@pytest.mark.redis  # the worker check reads the broker, the checks the cache
def test_health_without_a_valid_token_says_only_its_state(monkeypatch):
    monkeypatch.setitem(health._checks, "llm", lambda: {"ok": False, "backlog": 7})
    for client in (Client(), APIClient(HTTP_AUTHORIZATION="Bearer not-a-token")):
        response = client.get("/api/v1/health/")
        assert response.status_code == 200
        assert response.json() == {"status": "degraded"}


@pytest.mark.redis
def test_a_token_or_a_staff_login_sees_the_checks(alice_api, django_user_model):
    staff = Client()
    staff.force_login(django_user_model.objects.create_user("root", "r@x.org", is_staff=True))
    user = Client()
    user.force_login(django_user_model.objects.create_user("carol", "c@x.org"))
    assert set(alice_api.get("/api/v1/health/").json()) == {"status", "checks"}
    assert set(staff.get("/api/v1/health/").json()) == {"status", "checks"}
    assert set(user.get("/api/v1/health/").json()) == {"status"}


@pytest.mark.redis
def test_health_reports_database_and_worker_to_a_token(settings, alice_api):
    response = alice_api.get("/api/v1/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["database"]["vendor"] == connection.vendor
    broker = "redis" if settings.Q_CLUSTER.get("redis") else "orm"
    assert body["checks"]["worker"]["mode"] == broker
    assert body["status"] in {"ok", "degraded"}


def test_the_worker_check_flags_a_queue_nobody_consumes(settings):
    settings.GAIA_WORKER_STALE_SECONDS = 60
    cluster = {k: v for k, v in settings.Q_CLUSTER.items() if k != "redis"}
    settings.Q_CLUSTER = {**cluster, "orm": "default"}  # this check is the ORM broker's
    assert health_checks.worker_check()["ok"] is True
    OrmQ.objects.create(
        key=settings.Q_CLUSTER["name"],
        payload="x",
        lock=timezone.now() - timezone.timedelta(minutes=5),
    )
    check = health_checks.worker_check()
    assert check["ok"] is False and check["queued"] == 1
    assert check["oldest_queued_seconds"] >= 300


@pytest.mark.redis
def test_health_is_503_when_the_database_check_fails_and_never_leaks_secrets(
    monkeypatch, settings, alice_api
):
    settings.GAIA_LLM_API_KEY = "sk-very-secret-llm-key"
    monkeypatch.setitem(health._checks, "database", lambda: {"ok": False, "error": "down"})
    monkeypatch.setitem(
        health._checks,
        "llm",
        lambda: {
            "ok": False,
            "error": "401 from https://user:pw@llm.local with sk-very-secret-llm-key",
        },
    )
    response = alice_api.get("/api/v1/health/")
    assert response.status_code == 503
    assert Client().get("/api/v1/health/").json() == {"status": "down"}
    body = response.json()
    assert body["status"] == "down"
    text = response.content.decode()
    assert "sk-very-secret-llm-key" not in text and "user:pw" not in text
    assert "https://***@llm.local" in body["checks"]["llm"]["error"]


@pytest.mark.redis
def test_a_failing_extra_check_degrades_but_keeps_200(monkeypatch):
    monkeypatch.setitem(health._checks, "embedder", lambda: {"ok": False, "error": "no model"})
    response = Client().get("/api/v1/health/")
    assert response.status_code == 200 and response.json()["status"] == "degraded"


def test_the_schema_and_the_offline_docs_are_served_without_a_token():
    schema = Client().get("/api/v1/schema/", {"format": "json"})
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/v1/memories/{id}/" in paths and "/api/v1/tools/call/" in paths
    docs = Client().get("/api/v1/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()
    asset = Client().get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert asset.status_code == 200


# Actions whose only input is the id in the path.
BODILESS_ACTIONS = ("/restore/", "/erase/", "/reject/", "/consolidate/", "/validate/")
BODILESS_ACTIONS += ("/pause/", "/resume/", "/ping/", "/secret/")  # webhooks


def test_every_operation_documents_its_request_and_responses():
    schema = Client().get("/api/v1/schema/", {"format": "json"}).json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), (method, path)
            assert any(code.startswith("2") for code in operation["responses"]), (method, path)
            if method in {"post", "patch", "put"} and not path.endswith(BODILESS_ACTIONS):
                assert "requestBody" in operation, (method, path)


def test_schema_generation_has_no_warnings_or_errors(tmp_path):
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml")
    )
    assert (tmp_path / "schema.yml").read_text().startswith("openapi: 3")


@pytest.mark.cross_user("api-health", "api-schema", "api-docs")
def test_health_schema_and_docs_never_contain_user_data(alice, near_twins):
    services.memory_create(user=alice, content="alice-unique-marker-xyzzy")
    for url in ("/api/v1/health/", "/api/v1/schema/", "/api/v1/docs/"):
        text = Client().get(url).content.decode()
        assert "xyzzy" not in text and "alice" not in text
