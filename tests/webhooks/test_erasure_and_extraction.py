"""A person's erase removes their endpoints and every event about them, then tells their
app `user.erased`; extraction that ends failed is announced."""

import pytest

from accounts.people import app_create, person_create
from conversations.services.recording import turn_append
from learning.extraction import extraction_failed
from learning.llm import LLMError
from memory.services import memory_create
from privacy.services import memory_erase_user
from webhooks.delivery import endpoint_deliver
from webhooks.models import Endpoint, Event
from webhooks.services import deliveries_prune, endpoint_create

pytestmark = pytest.mark.django_db


def test_a_persons_erase_deletes_their_endpoints_and_tells_their_app_only_that(receiver):
    tutor = app_create(name="tutor")
    ada, _ = person_create(app=tutor, external_id="student-7")
    own, _ = endpoint_create(user=ada.user, url=receiver.url, events="*")
    apps, secret = endpoint_create(app=tutor, url=receiver.url + "/app", events="*")
    receiver.status = 500  # nothing gets through before the erase
    memory_create(user=ada.user, content="Ada's mother is a nurse at Ullevål")
    endpoint_deliver(endpoint_id=apps.pk)
    memory_erase_user(user=ada.user)
    assert not Endpoint.objects.filter(pk=own.pk).exists()
    assert list(Event.objects.values_list("kind", flat=True)) == ["user.erased"]
    receiver.status = 200
    receiver.requests.clear()
    endpoint_deliver(endpoint_id=apps.pk)
    [body] = receiver.verified(secret)
    assert body["type"] == "user.erased" and body["user_id"] == "student-7"
    assert body["data"]["erased"]["knowledge"] == 1
    assert "Ullevål" not in str(receiver.requests)


def test_an_ordinary_persons_erase_leaves_no_event_at_all(alice, receiver):
    endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=alice, content="Alice's bank is DNB")
    memory_erase_user(user=alice)
    assert not Endpoint.objects.exists() and not Event.objects.exists()


def test_delivered_events_are_pruned_after_the_kept_days(alice, receiver, settings):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events="*")
    memory_create(user=alice, content="Alice's train leaves at 07:12")
    endpoint_deliver(endpoint_id=endpoint.pk)
    settings.GAIA_WEBHOOK_KEEP_DAYS = 14
    assert deliveries_prune() == 0
    settings.GAIA_WEBHOOK_KEEP_DAYS = -1  # "delivered more than -1 days ago": all of them
    assert deliveries_prune() == 1
    assert not Event.objects.exists()


def test_an_extraction_that_ends_failed_is_announced(alice, receiver):
    endpoint, _ = endpoint_create(user=alice, url=receiver.url, events=["extraction.failed"])
    said = "I moved from Bergen to Tromsø last winter with my two cats"
    turn = turn_append(user=alice, session_id="s1", role="user", content=said)
    extraction_failed(turn, LLMError("invalid_json", "the answer was not JSON"))
    endpoint_deliver(endpoint_id=endpoint.pk)
    [body] = receiver.events()
    assert body["type"] == "extraction.failed"
    assert body["data"]["turn"] == {"id": turn.pk, "session_id": "s1", "context": "global"}
    assert body["data"]["reason"].startswith("invalid_json")
