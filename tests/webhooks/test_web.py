"""Settings > Webhooks: a signed-in person's endpoints and deliveries, and nobody else's."""

import pytest
from django.test import Client

from memory.services import memory_create
from webhooks.delivery import endpoint_deliver
from webhooks.models import Endpoint
from webhooks.services import endpoint_create

pytestmark = pytest.mark.django_db


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_person_adds_an_endpoint_and_sees_its_secret_once(alice):
    web = _signed_in(alice)
    page = web.post(
        "/settings/webhooks/",
        {"url": "https://hooks.example.net/gaia", "events": ["memory.created", "memory.erased"]},
    )
    endpoint = Endpoint.objects.get(owner=alice)
    assert page.status_code == 200 and endpoint.secret in page.content.decode()
    assert endpoint.events == ["memory.created", "memory.erased"]
    again = web.get("/settings/webhooks/").content.decode()
    assert "hooks.example.net/gaia" in again and endpoint.secret not in again


def test_the_page_shows_recent_deliveries_and_pauses_and_resumes(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=alice, content="Alice's library card number ends in 4417")
    endpoint_deliver(endpoint_id=endpoint.pk)
    web = _signed_in(alice)
    assert "memory.created" in web.get("/settings/webhooks/").content.decode()
    web.post(f"/settings/webhooks/{endpoint.pk}/pause/")
    assert Endpoint.objects.get(pk=endpoint.pk).is_paused
    web.post(f"/settings/webhooks/{endpoint.pk}/resume/")
    assert not Endpoint.objects.get(pk=endpoint.pk).is_paused


@pytest.mark.cross_user("web-webhooks", "web-webhook-action")
def test_another_persons_endpoints_are_neither_shown_nor_touched(alice, bob, receiver):
    endpoint, secret = endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=alice, content="Alice's spare key is under the blue pot")
    endpoint_deliver(endpoint_id=endpoint.pk)
    web = _signed_in(bob)
    page = web.get("/settings/webhooks/").content.decode()
    assert receiver.url not in page and "Recent deliveries" not in page
    for action in ("pause", "resume", "ping", "secret", "delete"):
        assert web.post(f"/settings/webhooks/{endpoint.pk}/{action}/").status_code == 404
    assert web.post("/settings/webhooks/999999/pause/").status_code == 404
    fresh = Endpoint.objects.get(pk=endpoint.pk)
    assert fresh.secret == secret and not fresh.is_paused
    assert len(receiver.requests) == 1  # bob's ping sent nothing
