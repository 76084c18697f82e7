"""Events reach a real local receiver once each, signed, in order; a receiver that was
down gets everything once it is back; repeated failure pauses the endpoint."""

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.people import app_create, app_set_disabled, person_create
from memory.services import memory_create, memory_forget, memory_update
from privacy.services import memory_erase
from webhooks.delivery import deliveries_sweep, endpoint_deliver
from webhooks.models import Delivery, Endpoint, Event
from webhooks.services import endpoint_create, endpoint_resume

pytestmark = pytest.mark.django_db


def _deliver(endpoint: Endpoint, rounds: int = 1) -> None:
    """What the worker does: run the endpoint's queue, with its retries made due now
    (the backoff's waiting is not what these tests are about)."""
    for _ in range(rounds):
        Delivery.objects.filter(endpoint=endpoint, status="pending").update(
            next_attempt_at=timezone.now()
        )
        endpoint_deliver(endpoint_id=endpoint.pk)


def test_it_delivers_each_event_once_signed_and_in_order(alice, receiver):
    endpoint, secret = endpoint_create(user=alice, url=receiver.url, events="*")
    item = memory_create(user=alice, content="Alice's sister Maren lives in Bergen")
    memory_update(user=alice, item_id=item.pk, content="Alice's sister Maren lives in Oslo")
    memory_forget(user=alice, item_id=item.pk)
    _deliver(endpoint)
    _deliver(endpoint)  # a second run sends nothing again
    bodies = receiver.verified(secret)
    assert [b["type"] for b in bodies] == ["memory.created", "memory.updated", "memory.forgotten"]
    assert [b["data"]["item"]["id"] for b in bodies] == [item.pk] * 3
    assert bodies[1]["data"]["item"]["content"] == "Alice's sister Maren lives in Oslo"
    assert bodies[0]["user_id"] is None  # an ordinary account: no external id
    headers = receiver.requests[0]["headers"]
    assert headers["X-Gaia-Event"] == "memory.created"
    assert headers["X-Gaia-Delivery"] == str(Delivery.objects.order_by("pk")[0].pk)
    assert Delivery.objects.filter(status="delivered").count() == 3


def test_it_sends_only_the_events_an_endpoint_subscribed_to(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events=["memory.forgotten"])
    item = memory_create(user=alice, content="Alice prefers window seats on trains")
    memory_forget(user=alice, item_id=item.pk)
    _deliver(endpoint)
    assert [b["type"] for b in receiver.events()] == ["memory.forgotten"]


def test_a_receiver_that_was_down_gets_everything_in_order_once_it_is_back(alice, receiver):
    endpoint, secret = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.stop()  # connection refused
    first = memory_create(user=alice, content="Alice's passport expires in March 2029")
    _deliver(endpoint)
    receiver.start()
    receiver.status = 500  # up, but failing
    second = memory_create(user=alice, content="Alice's dentist is Dr. Haugen in Grünerløkka")
    _deliver(endpoint)
    assert len(receiver.requests) == 1  # the first event again; the second waits behind it
    delivery = Delivery.objects.filter(event__item_id=first.pk).get()
    assert delivery.status == "pending" and delivery.attempts == 2
    log = list(delivery.log.all())
    assert log[0].status_code is None and log[0].error == "could not connect"
    assert log[1].status_code == 500 and log[1].error == "HTTP 500"
    receiver.status = 200
    receiver.requests.clear()
    _deliver(endpoint)
    ids = [b["data"]["item"]["id"] for b in receiver.verified(secret)]
    assert ids == [first.pk, second.pk]
    endpoint.refresh_from_db()
    assert endpoint.failures == 0 and endpoint.failing_since is None


def test_the_sweep_sends_what_is_due_and_waits_for_what_is_not(alice, receiver, settings):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=alice, content="Alice's bike is a blue Brompton")
    Delivery.objects.update(next_attempt_at=timezone.now() + timezone.timedelta(hours=1))
    assert deliveries_sweep() == 0
    Delivery.objects.update(next_attempt_at=timezone.now())
    assert deliveries_sweep() == 1  # queued for the worker (the broker holds it)
    endpoint_deliver(endpoint_id=endpoint.pk)
    assert len(receiver.requests) == 1


def test_repeated_failure_pauses_the_endpoint_and_resuming_sends_everything(
    alice, receiver, settings
):
    settings.GAIA_WEBHOOK_PAUSE_FAILURES = 3
    settings.GAIA_WEBHOOK_PAUSE_HOURS = 0
    endpoint, secret = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.status = 503
    item = memory_create(user=alice, content="Alice takes her coffee black")
    _deliver(endpoint, rounds=5)
    endpoint.refresh_from_db()
    assert endpoint.is_paused and "failed attempts" in endpoint.pause_reason
    assert len(receiver.requests) == 3  # paused after the third: no more attempts
    memory_update(user=alice, item_id=item.pk, content="Alice takes her coffee with oat milk")
    _deliver(endpoint)
    assert len(receiver.requests) == 3  # still paused: queued, not sent
    receiver.status = 200
    receiver.requests.clear()
    endpoint_resume(endpoint=endpoint)
    endpoint_deliver(endpoint_id=endpoint.pk)
    types = [b["type"] for b in receiver.verified(secret)]
    assert types == ["memory.created", "memory.updated"]


def test_a_rolled_back_change_sends_nothing(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    with pytest.raises(RuntimeError), transaction.atomic():
        memory_create(user=alice, content="Alice is planning a surprise party for Bob")
        raise RuntimeError("the request failed after the write")
    assert not Event.objects.exists()
    _deliver(endpoint)
    assert receiver.requests == []


def test_another_persons_events_never_reach_an_endpoint(alice, bob, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=bob, content="Bob's locker number is 2149-OMEGA")
    mine = memory_create(user=alice, content="Alice's locker is by the east stairs")
    _deliver(endpoint)
    bodies = receiver.events()
    assert [b["data"]["item"]["id"] for b in bodies] == [mine.pk]
    # What Bob said reaches no request: neither a body nor a header (signatures and ids are
    # random hex, so the probe is a string no hex run can spell).
    assert "OMEGA" not in str(receiver.requests)


def test_an_apps_endpoint_gets_its_people_events_and_no_one_elses(alice, receiver):
    tutor, other = app_create(name="tutor"), app_create(name="shop")
    ada, _ = person_create(app=tutor, external_id="student-7")
    zed, _ = person_create(app=other, external_id="customer-9")
    endpoint, secret = endpoint_create(app=tutor, url=receiver.url, events="*")
    memory_create(user=ada.user, content="Ada struggles with long division")
    memory_create(user=zed.user, content="Zed ordered the red kettle")
    memory_create(user=alice, content="Alice is learning Norwegian")
    _deliver(endpoint)
    bodies = receiver.verified(secret)
    assert [(b["user_id"], b["data"]["item"]["content"]) for b in bodies] == [
        ("student-7", "Ada struggles with long division")
    ]


def test_a_possible_conflict_is_announced_with_both_items(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events=["conflict.found"])
    old = memory_create(
        user=alice, content="Alice's favourite colour is green", category="preference"
    )
    new = memory_create(
        user=alice, content="Alice's favourite colour is purple", category="preference"
    )
    assert new.outcome == "conflict"
    _deliver(endpoint)
    [body] = receiver.events()
    assert body["data"]["item"]["id"] == new.pk
    assert body["data"]["conflicts_with"]["id"] == old.pk
    assert body["data"]["conflicts_with"]["content"] == "Alice's favourite colour is green"


def test_erasing_the_item_a_conflict_quoted_leaves_only_its_id_in_that_event(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events=["conflict.found"])
    receiver.status = 500
    old = memory_create(
        user=alice, content="Alice's favourite tea is sencha", category="preference"
    )
    new = memory_create(
        user=alice, content="Alice's favourite tea is rooibos", category="preference"
    )
    assert new.outcome == "conflict" and new.conflicts_with_id == old.pk
    _deliver(endpoint)
    memory_erase(user=alice, item_id=old.pk)
    receiver.status = 200
    receiver.requests.clear()
    _deliver(endpoint)
    [body] = receiver.events()
    assert body["data"]["conflicts_with"] == {"id": old.pk}
    assert "sencha" not in str(receiver.requests)


def test_erasing_an_item_announces_it_without_its_text_and_scrubs_earlier_events(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    receiver.status = 500
    item = memory_create(user=alice, content="Alice's therapist is Dr. Lund on Thursdays")
    _deliver(endpoint)
    memory_erase(user=alice, item_id=item.pk)
    receiver.status = 200
    receiver.requests.clear()
    _deliver(endpoint)
    bodies = receiver.events()
    assert [b["type"] for b in bodies] == ["memory.created", "memory.erased"]
    assert "Lund" not in str(receiver.requests)
    assert all(b["data"]["item"] == {"id": item.pk} for b in bodies)


def test_a_disabled_app_is_told_nothing_and_gets_what_waited_once_enabled(receiver):
    """While its app is disabled an endpoint gets no new event and its waiting deliveries
    are held (not sent, not failed); enabled again, the held ones go out in order."""
    tutor = app_create(name="tutor")
    ada, _ = person_create(app=tutor, external_id="student-7")
    endpoint, secret = endpoint_create(app=tutor, url=receiver.url, events="*")
    waiting = memory_create(user=ada.user, content="Ada practises fractions on Mondays")
    app_set_disabled(app=tutor, disabled=True)
    memory_create(user=ada.user, content="Ada's exam is on the ninth of June")
    assert deliveries_sweep() == 0
    _deliver(endpoint)
    assert receiver.requests == []
    assert list(Delivery.objects.values_list("event__item_id", "status")) == [
        (waiting.pk, "pending")
    ]
    app_set_disabled(app=tutor, disabled=False)
    assert deliveries_sweep() == 1
    _deliver(endpoint)
    bodies = receiver.verified(secret)
    assert [b["data"]["item"]["content"] for b in bodies] == ["Ada practises fractions on Mondays"]
    memory_create(user=ada.user, content="Ada likes geometry puzzles")
    _deliver(endpoint)
    assert len(receiver.events()) == 2
