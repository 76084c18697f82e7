from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from conversations.services.recording import turn_append
from memory import lineage, services
from memory.models import KnowledgeItem
from tests.support import assert_error

pytestmark = pytest.mark.django_db
MEMORIES = "/api/v1/memories/"
DEEP: list = [1]
for _ in range(30):
    DEEP = [DEEP]


def detail(pk: int, action: str = "") -> str:
    return f"{MEMORIES}{pk}/{action + '/' if action else ''}"


def test_it_remembers_one_item_and_answers_it_with_its_id(alice_api, alice):
    response = alice_api.post(
        MEMORIES,
        {"content": "Prefers tea", "category": "preference", "entity": "Person:Alice"},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    item = KnowledgeItem.objects.for_user(alice).get()
    assert body["id"] == item.pk
    assert body["deduplicated"] is False
    assert body["source"] == "tool" and body["confidence"] == 0.7
    assert body["entity"] == "person:alice"
    assert "embedding" not in body


def test_it_remembers_a_batch_in_request_order(alice_api, alice):
    entries = [
        {"content": "Zebra fact one"},
        {"content": "Apple fact two", "context": "work"},
        {"content": "Zebra fact one"},
    ]
    response = alice_api.post(MEMORIES, entries, format="json")
    assert response.status_code == 201
    body = response.json()
    assert [b["content"] for b in body] == [e["content"] for e in entries]
    assert [b["deduplicated"] for b in body] == [False, False, True]
    assert body[0]["id"] == body[2]["id"]
    assert KnowledgeItem.objects.for_user(alice).count() == 2


def test_it_links_an_item_to_the_callers_turn_and_refuses_anyone_elses(alice_api, alice, bob):
    mine = turn_append(user=alice, session_id="s1", role="user", content="I moved to Oslo")
    theirs = turn_append(user=bob, session_id="s1", role="user", content="I moved to Rome")
    ok = alice_api.post(MEMORIES, {"content": "Lives in Oslo", "source_turn": mine.pk}, "json")
    assert ok.status_code == 201 and ok.json()["source_turn"] == mine.pk
    assert KnowledgeItem.objects.for_user(alice).get().source_turn_id == mine.pk
    refused = [
        alice_api.post(MEMORIES, [{"content": "Lives in Rome", "source_turn": pk}], "json")
        for pk in (theirs.pk, 10**9)
    ]
    for response in refused:
        error = assert_error(response, 400, "invalid")
        assert error["fields"] == {"0.source_turn": ["No such turn."]}
    assert refused[0].json() == refused[1].json()
    assert KnowledgeItem.objects.for_user(alice).count() == 1


def test_it_stores_nothing_when_one_batch_entry_is_bad(alice_api, alice):
    response = alice_api.post(MEMORIES, [{"content": "fine"}, {"category": "fact"}], format="json")
    error = assert_error(response, 400, "invalid")
    assert error["fields"] == {"1.content": ["This field is required."]}
    assert KnowledgeItem.objects.for_user(alice).count() == 0


def test_it_refuses_an_empty_batch(alice_api):
    assert_error(alice_api.post(MEMORIES, [], format="json"), 400)


@pytest.mark.parametrize(
    "field", ["owner", "id", "created_at", "forgotten_at", "source", "use_count"]
)
def test_it_refuses_fields_a_client_may_not_set(alice_api, alice, bob, field):
    value = {"owner": bob.pk, "id": 999, "use_count": 50, "source": "user"}.get(
        field, "2001-01-01T00:00:00Z"
    )
    response = alice_api.post(MEMORIES, {"content": "Something", field: value}, format="json")
    assert assert_error(response, 400)["fields"] == {field: ["Unknown field: it cannot be set."]}
    assert KnowledgeItem.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [
        {"content": ["a", "list"]},
        {"content": {"an": "object"}},
        {"content": ""},
        {"content": "   "},
        {"content": "nul \x00 byte"},
        {"content": None},
        {"content": "ok", "category": "gossip"},
        {"content": "ok", "category": ["fact"]},
        {"content": "ok", "due_at": "not a date"},
        {"content": "ok", "due_at": "2024-13-45"},
        {"content": "ok", "due_at": "9999-12-31T23:00:00-12:00"},
        {"content": "ok", "due_at": 12345},
        {"content": "ok", "due_at": "2026-01-01\x00"},
        {"content": "ok", "confidence": 2},
        {"content": "ok", "confidence": "high"},
        {"content": "ok", "confidence": 10**400},
        {"content": "ok", "metadata": ["not", "an", "object"]},
        {"content": "ok", "metadata": {"k": "nul\x00"}},
        {"content": "ok", "metadata": {"deep": DEEP}},
        {"content": "ok", "sensitive": "perhaps"},
        {"content": "ok", "context": "x" * 101},
        {"content": "My password is hunter22"},
        {"content": "key sk-abcdefghijklmnopqrstuvwxyz123456"},
        "just a string",
        12,
    ],
)
def test_it_answers_bad_input_with_a_400_never_a_500(alice_api, alice, body):
    assert_error(alice_api.post(MEMORIES, body, format="json"), 400)
    assert KnowledgeItem.objects.for_user(alice).count() == 0


def test_it_answers_malformed_json_with_a_400(alice_api):
    for raw in ('{"content": ', "[" * 100_000, '{"content": "x", "confidence": NaN}'):
        assert_error(alice_api.post(MEMORIES, raw, content_type="application/json"), 400)


def test_it_answers_a_non_json_body_with_a_415(alice_api):
    response = alice_api.post(
        MEMORIES, "content=x", content_type="application/x-www-form-urlencoded"
    )
    assert_error(response, 415, "unsupported_media_type")


def test_it_lists_with_filters_ordering_and_paging(alice_api, alice):
    a = services.memory_create(
        user=alice, content="Work fact", context="work", entity="project:gaia"
    )
    b = services.memory_create(user=alice, content="Home preference", category="preference")
    c = services.memory_create(user=alice, content="Private note", category="note", sensitive=True)
    gone = services.memory_create(user=alice, content="Forgotten thing")
    services.memory_forget(user=alice, item_id=gone.pk)
    old = services.memory_create(user=alice, content="Old version of a fact")
    new = services.memory_create(user=alice, content="New version")
    lineage.memory_supersede_by(user=alice, item_id=old.pk, by_id=new.pk)

    def ids(**params):
        response = alice_api.get(MEMORIES, params)
        assert response.status_code == 200, response.content
        return {r["id"] for r in response.json()["results"]}

    assert gone.pk not in ids() and old.pk not in ids()
    assert gone.pk in ids(include_forgotten="true")
    assert old.pk in ids(include_superseded="true")
    assert ids(context="work") == {a.pk}
    assert ids(entity="PROJECT:GAIA") == {a.pk}
    assert ids(category="preference") == {b.pk}
    assert ids(sensitive="true") == {c.pk}
    assert c.pk not in ids(sensitive="false")
    assert ids(source="tool") == ids()
    page = alice_api.get(MEMORIES, {"page_size": 2, "ordering": "created_at"}).json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"]
    assert page["results"][0]["id"] == a.pk
    assert alice_api.get(MEMORIES, {"page_size": 1000}).status_code == 200


@pytest.mark.parametrize(
    "params",
    [{"ordering": "owner"}, {"category": "gossip"}, {"sensitive": "perhaps"}, {"context": "a\x00"}],
)
def test_it_refuses_bad_list_filters(alice_api, params):
    assert_error(alice_api.get(MEMORIES, params), 400)


def test_it_gets_updates_forgets_restores_and_erases_one_item(alice_api, alice, alice_item):
    assert alice_api.get(detail(alice_item.pk)).json()["content"] == alice_item.content

    response = alice_api.patch(
        detail(alice_item.pk), {"domain": "food", "reminded_at": "now"}, format="json"
    )
    assert response.status_code == 200
    alice_item.refresh_from_db()
    assert alice_item.domain == "food" and alice_item.reminded_at is not None
    assert alice_item.content == "Alice drinks oat milk flat whites"  # untouched

    response = alice_api.delete(detail(alice_item.pk))
    assert response.status_code == 200 and response.json()["forgotten_at"]
    assert alice_api.get(MEMORIES).json()["count"] == 0
    search = alice_api.post(f"{MEMORIES}search/", {"query": "oat milk"}, format="json")
    assert search.json()["results"] == []

    response = alice_api.post(detail(alice_item.pk, "restore"))
    assert response.status_code == 200 and response.json()["forgotten_at"] is None
    search = alice_api.post(f"{MEMORIES}search/", {"query": "oat milk"}, format="json")
    assert [r["id"] for r in search.json()["results"]] == [alice_item.pk]

    assert alice_api.post(detail(alice_item.pk, "erase")).status_code == 204
    assert_error(alice_api.get(detail(alice_item.pk)), 404, "not_found")
    assert not KnowledgeItem.objects.filter(pk=alice_item.pk).exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"owner": 2},
        {"content": ""},
        {"reminded_at": "tomorrow-ish"},
        {"category": "gossip"},
        {"confidence": -1},
        {"metadata": "x"},
        ["content"],
    ],
)
def test_it_refuses_bad_updates_and_leaves_the_item_alone(alice_api, alice_item, body):
    assert_error(alice_api.patch(detail(alice_item.pk), body, format="json"), 400)
    alice_item.refresh_from_db()
    assert alice_item.content == "Alice drinks oat milk flat whites"


def test_it_answers_ids_too_large_for_the_database_with_404(alice_api):
    assert_error(alice_api.get(detail(2**70)), 404)
    assert_error(alice_api.post(detail(2**64, "erase")), 404)


def test_it_answers_an_unsupported_method_with_405(alice_api, alice_item):
    assert_error(alice_api.put(detail(alice_item.pk), {}, format="json"), 405)


def test_it_recalls_with_scores_filters_and_side_effects(alice_api, alice):
    hit = services.memory_create(user=alice, content="Sarah Chen leads the billing project")
    services.memory_create(user=alice, content="Sarah Chen phone number", sensitive=True)
    services.memory_create(user=alice, content="Unrelated cooking note", category="note")
    response = alice_api.post(
        f"{MEMORIES}search/", {"query": "billing project Sarah", "top_k": 3}, format="json"
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert [r["id"] for r in results] == [hit.pk]
    assert set(results[0]) == {
        "id", "content", "category", "context", "entity", "domain", "confidence", "source",
        "created_at", "due_at", "metadata", "score", "relevance", "matched_by", "via", "agent",
        "older_than",
    }  # fmt: skip
    hit.refresh_from_db()
    assert hit.use_count == 1 and hit.confidence == pytest.approx(0.72)
    with_sensitive = alice_api.post(
        f"{MEMORIES}search/", {"query": "Sarah Chen", "include_sensitive": True}, format="json"
    ).json()["results"]
    assert len(with_sensitive) == 2
    future = (timezone.now() + timedelta(days=1)).isoformat()
    later = alice_api.post(
        f"{MEMORIES}search/", {"query": "Sarah", "time_from": future}, format="json"
    ).json()["results"]
    assert later == []


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": "x", "top_k": 0},
        {"query": "x", "top_k": 101},
        {"query": "x", "top_k": "five"},
        {"query": "x", "top_k": 10**30},
        {"query": "x", "time_from": "yesterday"},
        {"query": "x", "category": "gossip"},
        {"query": ["x"]},
        {"query": "x", "owner": 1},
    ],
)
def test_it_refuses_bad_recall_input(alice_api, body):
    assert_error(alice_api.post(f"{MEMORIES}search/", body, format="json"), 400)


@pytest.mark.parametrize("query", ['"unbalanced', "AND (", "*", "NEAR(a b)", "🦄", "x" * 10_000])
def test_it_treats_search_syntax_in_a_query_as_plain_words(alice_api, alice, query):
    services.memory_create(user=alice, content="Something about unicorns")
    response = alice_api.post(f"{MEMORIES}search/", {"query": query}, format="json")
    assert response.status_code == 200


def test_it_forgets_in_bulk_softly_with_a_dry_run(alice_api, alice):
    old = services.memory_create(user=alice, content="Old work fact", context="work")
    KnowledgeItem.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    services.memory_create(user=alice, content="New work fact", context="work")
    body = {"context": "work", "older_than": "30d"}
    dry = alice_api.post(f"{MEMORIES}forget/", {**body, "dry_run": True}, format="json")
    assert dry.json() == {"forgotten": 1, "dry_run": True, "ids": [old.pk]}
    assert KnowledgeItem.objects.for_user(alice).active().count() == 2
    response = alice_api.post(f"{MEMORIES}forget/", body, format="json")
    assert response.json() == {"forgotten": 1, "dry_run": False, "ids": [old.pk]}
    old.refresh_from_db()
    assert old.forgotten_at is not None


@pytest.mark.parametrize(
    "body",
    [{}, {"older_than": "soon"}, {"categories": ["gossip"]}, {"categories": "fact"}, {"id": 1}],
)
def test_it_refuses_bulk_forget_without_a_valid_filter(alice_api, alice_item, body):
    assert_error(alice_api.post(f"{MEMORIES}forget/", body, format="json"), 400)
    alice_item.refresh_from_db()
    assert alice_item.forgotten_at is None


def test_it_lists_upcoming_and_overdue_items(alice_api, alice):
    soon = services.memory_create(
        user=alice,
        content="Dentist",
        category="reminder",
        due_at=timezone.now() + timedelta(days=2),
    )
    late = services.memory_create(
        user=alice, content="Taxes", category="reminder", due_at=timezone.now() - timedelta(days=1)
    )
    services.memory_create(
        user=alice,
        content="Far away",
        category="reminder",
        due_at=timezone.now() + timedelta(days=30),
    )
    response = alice_api.get(f"{MEMORIES}upcoming/", {"days": 7})
    assert [r["id"] for r in response.json()["results"]] == [late.pk, soon.pk]
    assert len(alice_api.get(f"{MEMORIES}upcoming/", {"days": 60}).json()["results"]) == 3
    for days in ("-1", "many", "367"):
        assert_error(alice_api.get(f"{MEMORIES}upcoming/", {"days": days}), 400)


def test_a_person_in_the_web_app_writes_with_source_user(alice):
    client = APIClient()
    client.force_login(alice)
    response = client.post(MEMORIES, {"content": "Typed by hand"}, format="json")
    assert response.status_code == 201
    assert response.json()["source"] == "user" and response.json()["confidence"] == 0.8


@pytest.mark.cross_user("api-memory-detail", "api-memory-restore", "api-memory-erase")
def test_another_users_id_is_a_404_like_a_missing_one_and_changes_nothing(bob_api, alice_item):
    before = KnowledgeItem.objects.filter(pk=alice_item.pk).values().get()
    missing = 10**9
    calls = [
        ("get", ""), ("patch", ""), ("delete", ""), ("post", "restore"), ("post", "erase"),
    ]  # fmt: skip
    for method, action in calls:
        body = {"content": "bob was here"} if method == "patch" else None
        theirs = getattr(bob_api, method)(detail(alice_item.pk, action), body, format="json")
        absent = getattr(bob_api, method)(detail(missing, action), body, format="json")
        assert_error(theirs, 404, "not_found")
        assert theirs.json() == absent.json()
    assert KnowledgeItem.objects.filter(pk=alice_item.pk).values().get() == before


@pytest.mark.cross_user(
    "api-memories", "api-memory-search", "api-memory-forget", "api-memory-upcoming"
)
def test_lists_searches_and_bulk_forget_never_reach_another_users_rows(
    alice_api, bob_api, alice, near_twins
):
    services.memory_update(
        user=alice, item_id=near_twins["alice"].pk, due_at=timezone.now() + timedelta(days=1)
    )
    listed = bob_api.get(MEMORIES, {"include_forgotten": True, "include_superseded": True})
    assert {r["content"] for r in listed.json()["results"]} == {
        "The user bob works on project gaia",
        "bob prefers dark mode",
    }
    found = bob_api.post(
        f"{MEMORIES}search/", {"query": "user works on project gaia", "top_k": 100}, format="json"
    )
    assert [r["id"] for r in found.json()["results"]] == [near_twins["bob"].pk]
    assert bob_api.get(f"{MEMORIES}upcoming/").json()["results"] == []
    bulk = bob_api.post(
        f"{MEMORIES}forget/", {"context": "global", "older_than": "0h"}, format="json"
    )
    assert bulk.json()["forgotten"] == 2
    assert KnowledgeItem.objects.for_user(alice).active().count() == 2
    assert alice_api.get(reverse("api-memories")).json()["count"] == 2


def test_empty_filters_are_no_filters(alice_api, alice_item):
    listed = alice_api.get(MEMORIES, {"category": "", "context": "", "entity": "", "source": ""})
    assert [r["id"] for r in listed.json()["results"]] == [alice_item.pk]
    found = alice_api.post(
        f"{MEMORIES}search/", {"query": "oat milk", "category": "", "context": ""}, format="json"
    )
    assert [r["id"] for r in found.json()["results"]] == [alice_item.pk]
