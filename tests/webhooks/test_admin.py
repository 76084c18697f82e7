"""Staff see endpoints and deliveries in the admin, never a signing secret."""

import pytest
from django.test import Client

from memory.services import memory_create
from webhooks.delivery import endpoint_deliver
from webhooks.models import Endpoint
from webhooks.services import endpoint_create

pytestmark = pytest.mark.django_db


def test_staff_see_endpoints_and_deliveries_but_no_secret_and_can_resume(
    django_user_model, alice, receiver
):
    root = django_user_model.objects.create_superuser("root", "root@example.org", "root-pass")
    staff = Client()
    staff.force_login(root)
    endpoint, secret = endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=alice, content="Alice's choir sings on Wednesdays")
    endpoint_deliver(endpoint_id=endpoint.pk)
    for url in (
        "/admin/webhooks/endpoint/",
        f"/admin/webhooks/endpoint/{endpoint.pk}/change/",
        "/admin/webhooks/delivery/",
    ):
        page = staff.get(url)
        assert page.status_code == 200 and secret not in page.content.decode(), url
    assert "memory.created" in staff.get("/admin/webhooks/delivery/").content.decode()
    changelist = "/admin/webhooks/endpoint/"
    staff.post(changelist, {"action": "pause", "_selected_action": [endpoint.pk]})
    assert Endpoint.objects.get(pk=endpoint.pk).pause_reason == "paused by staff"
    staff.post(changelist, {"action": "resume", "_selected_action": [endpoint.pk]})
    assert not Endpoint.objects.get(pk=endpoint.pk).is_paused
