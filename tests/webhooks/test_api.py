"""The webhooks API: a person's and an app's endpoints, each seen only by its owner."""

import pytest
from rest_framework.test import APIClient

from accounts.people import app_create, app_token_create, person_create
from memory.services import memory_create
from webhooks.delivery import endpoint_deliver
from webhooks.models import Delivery, Endpoint
from webhooks.services import endpoint_create

pytestmark = pytest.mark.django_db
ALL = [
    "api-webhooks",
    "api-webhook-detail",
    "api-webhook-secret",
    "api-webhook-pause",
    "api-webhook-resume",
    "api-webhook-ping",
    "api-webhook-deliveries",
]


def _app_client(name: str) -> tuple[APIClient, object]:
    app = app_create(name=name)
    _, secret = app_token_create(app=app)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client, app


def test_a_person_registers_an_endpoint_and_sees_its_secret_once(alice_api, receiver):
    answer = alice_api.post(
        "/api/v1/webhooks/",
        {"url": receiver.url, "events": ["memory.created"], "description": "my n8n"},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["secret"].startswith("whsec_") and body["owner"] == "person"
    assert body["events"] == ["memory.created"] and body["paused"] is False
    listed = alice_api.get("/api/v1/webhooks/").json()["results"]
    assert [e["id"] for e in listed] == [body["id"]] and "secret" not in listed[0]
    assert "secret" not in alice_api.get(f"/api/v1/webhooks/{body['id']}/").json()


def test_it_refuses_a_bad_url_or_an_unknown_event(alice_api):
    for given, field in (
        ({"url": "ftp://example.org/hook", "events": "*"}, "url"),
        ({"url": "https://user:pw@example.org/hook", "events": "*"}, "url"),
        ({"url": "https://example.org/hook", "events": ["memory.exploded"]}, "events"),
        ({"url": "https://example.org/hook", "events": []}, "events"),
    ):
        answer = alice_api.post("/api/v1/webhooks/", given, format="json")
        assert answer.status_code == 400 and field in answer.json()["error"]["fields"], given


def test_private_receivers_can_be_refused_by_setting(alice_api, settings):
    settings.GAIA_WEBHOOK_ALLOW_PRIVATE = False
    for url in ("http://127.0.0.1:9000/hook", "http://10.1.2.3/hook", "http://localhost/h"):
        answer = alice_api.post("/api/v1/webhooks/", {"url": url, "events": "*"}, format="json")
        assert answer.status_code == 400, url


def test_ping_pause_resume_rotate_and_deliveries(alice, alice_api, receiver):
    endpoint, old_secret = endpoint_create(user=alice, url=receiver.url, events="*")
    base = f"/api/v1/webhooks/{endpoint.pk}"
    ping = alice_api.post(f"{base}/ping/")
    assert ping.status_code == 200 and ping.json()["status"] == "delivered"
    assert receiver.verified(old_secret)[0]["type"] == "ping"
    new_secret = alice_api.post(f"{base}/secret/").json()["secret"]
    assert new_secret != old_secret
    assert alice_api.post(f"{base}/pause/").json()["paused"] is True
    memory_create(user=alice, content="Alice's gym closes at 22:00 on Fridays")
    endpoint_deliver(endpoint_id=endpoint.pk)
    assert len(receiver.requests) == 1  # paused: only the ping so far
    assert alice_api.post(f"{base}/resume/").json()["paused"] is False
    endpoint_deliver(endpoint_id=endpoint.pk)
    receiver.requests.pop(0)
    assert receiver.verified(new_secret)[0]["type"] == "memory.created"
    rows = alice_api.get(f"{base}/deliveries/").json()["results"]
    assert [r["event"] for r in rows] == ["memory.created", "ping"]
    assert rows[0]["status"] == "delivered" and rows[0]["log"][0]["status_code"] == 200
    assert alice_api.get(f"{base}/deliveries/?status=pending").json()["results"] == []
    assert alice_api.get(f"{base}/deliveries/?status=lost").status_code == 400
    assert alice_api.delete(f"{base}/").status_code == 204
    assert not Endpoint.objects.exists() and not Delivery.objects.exists()


def test_a_ping_to_a_receiver_that_is_down_reports_the_failure(alice, alice_api, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.stop()
    body = alice_api.post(f"/api/v1/webhooks/{endpoint.pk}/ping/").json()
    assert body["status"] == "failed" and body["last_error"] == "could not connect"
    endpoint.refresh_from_db()
    assert endpoint.failures == 0  # a ping is no delivery of the queue


@pytest.mark.cross_user(*ALL)
def test_another_persons_endpoint_is_a_404_and_never_listed(alice, bob_api, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    base = f"/api/v1/webhooks/{endpoint.pk}"
    missing = bob_api.get("/api/v1/webhooks/999999/")
    assert missing.status_code == 404
    for method, url in (
        ("get", f"{base}/"),
        ("patch", f"{base}/"),
        ("delete", f"{base}/"),
        ("post", f"{base}/secret/"),
        ("post", f"{base}/pause/"),
        ("post", f"{base}/resume/"),
        ("post", f"{base}/ping/"),
        ("get", f"{base}/deliveries/"),
    ):
        given = {"url": "http://127.0.0.1:1/x"} if method == "patch" else None
        answer = getattr(bob_api, method)(url, given, format="json")
        assert answer.status_code == 404 and answer.json() == missing.json(), (method, url)
    assert bob_api.get("/api/v1/webhooks/").json()["results"] == []
    fresh = Endpoint.objects.get(pk=endpoint.pk)
    assert fresh.url == receiver.url and fresh.secret == endpoint.secret and not fresh.is_paused
    assert receiver.requests == []  # bob's ping sent nothing


@pytest.mark.cross_user(*ALL)
def test_an_app_sees_its_own_endpoints_only_and_a_person_not_the_apps(receiver):
    tutor_api, tutor = _app_client("tutor")
    shop_api, _ = _app_client("shop")
    created = tutor_api.post(
        "/api/v1/webhooks/", {"url": receiver.url, "events": "*"}, format="json"
    )
    assert created.status_code == 201 and created.json()["owner"] == "app"
    pk = created.json()["id"]
    assert Endpoint.objects.get(pk=pk).app == tutor
    assert shop_api.get("/api/v1/webhooks/").json()["results"] == []
    for url in (f"/api/v1/webhooks/{pk}/", f"/api/v1/webhooks/{pk}/deliveries/"):
        assert shop_api.get(url).status_code == 404
    assert shop_api.post(f"/api/v1/webhooks/{pk}/pause/").status_code == 404
    # acting for one of its people, the app token reaches that person's endpoints instead
    person_create(app=tutor, external_id="student-1")
    acting = tutor_api.get("/api/v1/webhooks/?user_id=student-1")
    assert acting.status_code == 200 and acting.json()["results"] == []
    assert tutor_api.get(f"/api/v1/webhooks/{pk}/?user_id=student-1").status_code == 404
    assert tutor_api.get(f"/api/v1/webhooks/{pk}/").json()["url"] == receiver.url
