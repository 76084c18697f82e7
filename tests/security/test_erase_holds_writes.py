"""A person's erase holds off their writes from its start (issue #41): a retryable 503
with Retry-After while it runs; a write caught out by it (a foreign key to a row it
removed) answers the same 503, never 500; the erase of an app's person and their account
delete are one unit with its counts in the answer. The race itself, with real
concurrent writers, is tests/system/test_erase_race.py."""

from datetime import timedelta

import pytest
from django.db import IntegrityError
from django.utils import timezone
from rest_framework.test import APIClient, APIRequestFactory

from accounts import people
from accounts.models import ApiToken
from core.api.conventions import exception_handler
from core.erasing import RETRY_AFTER, erasure_hold
from core.models import Erasure
from memory.models import KnowledgeItem
from privacy.services import app_person_erase, memory_erase_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def app(db):
    return people.app_create(name="acme-support")


@pytest.fixture
def app_api(app) -> APIClient:
    _, secret = people.app_token_create(app=app, name="prod")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def test_a_persons_writes_answer_503_with_retry_after_while_their_erase_runs(
    alice, alice_api, bob_api
):
    with erasure_hold(alice):
        refused = alice_api.post("/api/v1/memories/", {"content": "Likes green tea"},
                                 format="json")  # fmt: skip
        graph = alice_api.post("/api/v1/graph/entities/", {"name": "Rui"}, format="json")
        read = alice_api.get("/api/v1/memories/")
        others = bob_api.post("/api/v1/memories/", {"content": "Likes coffee"}, format="json")
    for answer in (refused, graph):
        assert answer.status_code == 503, answer.content
        assert answer.json()["error"]["code"] == "erase_running"
        assert answer["Retry-After"] == str(RETRY_AFTER)
    assert read.status_code == 200 and others.status_code == 201
    assert not KnowledgeItem.objects.for_user(alice).exists()
    after = alice_api.post("/api/v1/memories/", {"content": "Likes green tea"}, format="json")
    assert after.status_code == 201  # the erase ended: the account is theirs to use again


def test_an_erase_killed_half_way_holds_nothing_back_after_an_hour(alice, alice_api):
    Erasure.objects.create(user=alice, started_at=timezone.now() - timedelta(hours=2))
    answer = alice_api.post("/api/v1/memories/", {"content": "Likes green tea"}, format="json")
    assert answer.status_code == 201


def _request_of(user):
    request = APIRequestFactory().post("/api/v1/graph/relations/")
    request._user = user
    return request


def test_a_foreign_key_failure_just_after_a_persons_erase_is_the_same_503(alice, bob):
    memory_erase_user(user=alice)
    caught = exception_handler(IntegrityError("FOREIGN KEY constraint failed"),
                               {"request": _request_of(alice)})  # fmt: skip
    assert caught.status_code == 503 and caught.data["error"]["code"] == "erase_running"
    assert caught["Retry-After"] == str(RETRY_AFTER)
    # Nobody's erase explains it: it stays a server error (Django's 500).
    assert exception_handler(IntegrityError("x"), {"request": _request_of(bob)}) is None


def test_an_apps_person_and_their_account_go_in_one_erase_that_counts_them(app_api, app):
    person, _ = people.person_create(app=app, external_id="ana@example.org")
    KnowledgeItem.objects.create(owner=person.user, content="Ana likes green tea")
    user_id = person.user.pk
    answer = app_api.delete("/api/v1/people/ana%40example.org/")
    assert answer.status_code == 200, answer.content
    erased = answer.json()["erased"]
    assert erased["knowledge"] == 1 and erased["account"] == 1 and erased["tokens"] >= 0
    assert not KnowledgeItem.objects.filter(owner_id=user_id).exists()
    assert not ApiToken.objects.filter(owner_id=user_id).exists()
    assert not Erasure.objects.filter(user_id=user_id).exists()


def test_a_failed_account_delete_leaves_the_account_usable(app, monkeypatch):
    person, _ = people.person_create(app=app, external_id="rui")

    def broken(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("privacy.services.person_delete", broken)
    with pytest.raises(RuntimeError):
        app_person_erase(app=app, person=person)
    person.refresh_from_db()
    assert Erasure.objects.get(user_id=person.user_id).finished_at is not None
