"""Webhooks by the book: the private-address rule on the address connected (people's and
apps' endpoints refused by default, staff's allowed), Standard Webhooks signatures, a log
of statuses and fixed reasons only, and the first retry sent by the worker's own run."""

import socket
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.people import app_create
from memory.services import memory_create
from privacy.services import memory_erase
from webhooks.delivery import REFUSED, endpoint_deliver
from webhooks.models import Attempt, Delivery
from webhooks.services import ERASED_REASON, deliveries_prune, endpoint_create

pytestmark = pytest.mark.django_db
PUBLIC = "93.184.216.34"


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(
        "sam", "sam@example.org", "sam-pass", is_staff=True
    )


def test_by_default_a_persons_or_an_apps_endpoint_may_not_be_a_private_address(alice_api, settings):
    settings.GAIA_WEBHOOK_ALLOW_PRIVATE = False  # the default, whatever the receiver fixture says
    for url in ("http://127.0.0.1:9000/hook", "http://[::1]:9000/h", "http://localhost/h"):
        answer = alice_api.post("/api/v1/webhooks/", {"url": url, "events": "*"}, format="json")
        assert answer.status_code == 400 and "url" in answer.json()["error"]["fields"], url
    with pytest.raises(Exception, match="public addresses only"):
        endpoint_create(app=app_create(name="tutor"), url="http://10.0.0.7/hook", events="*")


def test_a_staff_members_endpoint_reaches_a_receiver_on_loopback(staff, receiver, settings):
    settings.GAIA_WEBHOOK_ALLOW_PRIVATE = False
    endpoint, _ = endpoint_create(user=staff, url=receiver.url, events="*")
    memory_create(user=staff, content="The backup server rotates its keys on Mondays")
    assert endpoint_deliver(endpoint_id=endpoint.pk)["delivered"] == 1
    assert len(receiver.requests) == 1


def test_a_name_that_resolves_to_loopback_after_the_check_is_refused_at_connect_time(
    alice, receiver, settings, monkeypatch
):
    settings.GAIA_WEBHOOK_ALLOW_PRIVATE = False
    real = socket.getaddrinfo
    answers = iter([PUBLIC])  # the first lookup (the URL's check) is public, then loopback

    def rebinding(host, *args, **kwargs):
        if host != "hooks.rebind.example":
            return real(host, *args, **kwargs)
        address = next(answers, "127.0.0.1")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, receiver.port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    url = f"http://hooks.rebind.example:{receiver.port}/hook"
    endpoint, _ = endpoint_create(user=alice, url=url, events="*")
    memory_create(user=alice, content="Alice's locker is by the north stairs")
    assert endpoint_deliver(endpoint_id=endpoint.pk)["failed"] == 1
    assert receiver.requests == []  # nothing reached the loopback port
    attempt = Attempt.objects.get()
    assert attempt.status_code is None and attempt.error == REFUSED


def test_a_standard_webhooks_verifier_accepts_every_delivery(alice, receiver):
    endpoint, secret = endpoint_create(user=alice, url=receiver.url, events="*")
    item = memory_create(user=alice, content="Alice's niece Lena turns seven on 3 May")
    memory_erase(user=alice, item_id=item.pk)
    endpoint_deliver(endpoint_id=endpoint.pk)
    bodies = receiver.standard_verified(secret)
    assert [b["type"] for b in bodies] == ["memory.created", "memory.erased"]
    headers = [r["headers"] for r in receiver.requests]
    assert [h["webhook-id"] for h in headers] == [
        f"msg_{d.pk}" for d in Delivery.objects.order_by("pk")
    ]
    assert receiver.verified(secret) == bodies  # the older header, for one release
    with pytest.raises(Exception, match="signature"):
        receiver.standard_verified(secret[:-6] + "AAAAA=")


def test_the_log_keeps_a_status_never_the_receivers_answer(alice, alice_api, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.status = 400
    receiver.answer = b'{"error": "bad", "content": "Alice\'s landlord is Mr. Okafor"}'
    memory_create(user=alice, content="Alice's landlord is Mr. Okafor")
    endpoint_deliver(endpoint_id=endpoint.pk)
    rows = alice_api.get(f"/api/v1/webhooks/{endpoint.pk}/deliveries/").json()["results"]
    assert [r["last_error"] for r in rows] == ["HTTP 400"]
    assert [a.error for a in Attempt.objects.all()] == ["HTTP 400"]


def test_an_items_erase_blanks_what_an_older_log_kept_of_it(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.status = 400
    item = memory_create(user=alice, content="Alice's landlord is Mr. Okafor")
    endpoint_deliver(endpoint_id=endpoint.pk)
    echoed = 'HTTP 400: {"content": "Alice\'s landlord is Mr. Okafor"}'  # as the log kept it before
    Attempt.objects.update(error=echoed)
    Delivery.objects.update(last_error=echoed)
    memory_erase(user=alice, item_id=item.pk)
    assert set(Attempt.objects.values_list("error", flat=True)) == {ERASED_REASON}
    assert "Okafor" not in str(list(Delivery.objects.values_list("last_error", flat=True)))


def test_deliveries_that_kept_failing_are_pruned_with_the_delivered_ones(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.status = 503
    memory_create(user=alice, content="Alice's bike is at the shop on Elm Road")
    endpoint_deliver(endpoint_id=endpoint.pk)
    endpoint_create(user=alice, url=receiver.url + "/2", events="*")
    memory_create(user=alice, content="Alice's ferry leaves at 07:40")  # never attempted
    Delivery.objects.update(created_at=timezone.now() - timedelta(days=30))
    assert Delivery.objects.filter(status="pending").count() == 3
    assert deliveries_prune() == 1  # the one that failed; unattempted ones wait
    assert not Attempt.objects.exists()


def test_a_worker_sends_the_first_retry_itself_ten_seconds_after_the_failure(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.statuses = [500]  # the first attempt fails, the retry is answered 200
    memory_create(user=alice, content="Alice's choir sings at St. Mary's on Sunday")
    began = time.monotonic()
    done = endpoint_deliver(endpoint_id=endpoint.pk, retry_soon=True)
    assert done == {"endpoint": endpoint.pk, "delivered": 1, "failed": 1}
    assert time.monotonic() - began >= 10  # it waited the documented 10 s, in this run
    first, retry = Attempt.objects.order_by("pk")
    assert (first.status_code, retry.status_code) == (500, 200)
    assert retry.at - first.at >= timedelta(seconds=10)
    assert Delivery.objects.get().status == "delivered"
