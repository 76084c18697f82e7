"""Dedup by meaning through the API: a rewrite of the same statement folds, and so does
a refinement (one says all the other does, and more), into the fuller text; two facts
that share most words but differ in a place, day, number, name or negation are both
kept, linked as a possible conflict, and the write says which happened."""

import pytest

from accounts.services import token_create
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db
MEMORIES = "/api/v1/memories/"

# (stored first, then written): what the second write became
PAIRS = [
    ("User loves hiking in the Dolomites", "User loves hiking in the Alps", "conflict"),
    ("Team meeting is on Monday", "Team meeting is on Friday", "conflict"),
    ("User is allergic to penicillin", "User is not allergic to penicillin", "conflict"),
    ("User is allergic to penicillin", "User isn't allergic to penicillin", "conflict"),
    ("User has 2 cats", "User has 3 cats", "conflict"),
    ("Sarah leads the platform team", "Sarah leads the mobile team", "conflict"),
    ("Sarah leads the platform team", "Tom leads the platform team", "conflict"),
    ("Bob plays chess on Sundays", "Bob plays chess on Sundays at noon", "deduplicated"),
    ("User works at Acme", "User no longer works at Acme", "conflict"),
    ("User lives in Porto", "User used to live in Porto", "conflict"),
    ("User eats meat", "User never eats meat", "conflict"),
    ("User loves hiking in the Alps", "user loves hiking in the alps.", "deduplicated"),
    ("User loves hiking in the Alps", "In the Alps, user loves hiking", "deduplicated"),
    ("User hikes in the Alps", "The user hiked in the Alps", "deduplicated"),
    ("User is allergic to penicillin", "User: allergic to penicillin!", "deduplicated"),
    ("User isn't allergic to penicillin", "User is not allergic to penicillin", "deduplicated"),
    ("The standup is at 9:30", "standup is at 9:30", "deduplicated"),
    ("User likes dark mode", "User prefers dark mode", "conflict"),
    ("User likes green tea", "User hates cold black coffee", "new"),
]


@pytest.mark.parametrize("first, second, outcome", PAIRS)
def test_a_write_folds_only_what_says_the_same_and_links_what_may_conflict(
    alice_api, alice, first, second, outcome
):
    stored = alice_api.post(MEMORIES, {"content": first}, format="json").json()
    response = alice_api.post(MEMORIES, {"content": second}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert body["outcome"] == outcome
    assert body["deduplicated"] is (outcome == "deduplicated")
    active = KnowledgeItem.objects.for_user(alice).active()
    if outcome == "deduplicated":
        assert body["id"] == stored["id"] and body["content"] == second
        assert list(active.values_list("content", flat=True)) == [second]
    else:  # both kept, the first unchanged
        assert body["id"] != stored["id"]
        assert set(active.values_list("content", flat=True)) == {first, second}
        assert body["conflicts_with"] == (stored["id"] if outcome == "conflict" else None)


def test_a_possible_conflict_shows_on_both_items_until_judged(alice_api):
    first = alice_api.post(MEMORIES, {"content": "Team meeting is on Monday"}, format="json")
    second = alice_api.post(MEMORIES, {"content": "Team meeting is on Friday"}, format="json")
    first, second = first.json(), second.json()

    newer = alice_api.get(f"{MEMORIES}{second['id']}/").json()
    older = alice_api.get(f"{MEMORIES}{first['id']}/").json()
    assert newer["conflicts_with"] == first["id"]
    assert newer["conflicts"] == [{"id": first["id"], "content": "Team meeting is on Monday"}]
    assert older["conflicts"] == [{"id": second["id"], "content": "Team meeting is on Friday"}]


def test_bob_never_sees_a_conflict_with_alices_items(alice_api, bob_api):
    alice_api.post(MEMORIES, {"content": "Team meeting is on Monday"}, format="json")
    body = bob_api.post(MEMORIES, {"content": "Team meeting is on Friday"}, format="json").json()
    assert body["outcome"] == "new" and body["conflicts_with"] is None


def test_a_batch_says_what_each_entry_became(alice_api):
    entries = [
        {"content": "User lives in Porto"},
        {"content": "user lives in Porto."},
        {"content": "User lives in Lisbon"},
    ]
    body = alice_api.post(MEMORIES, entries, format="json").json()
    assert [b["outcome"] for b in body] == ["new", "deduplicated", "conflict"]
    assert body[2]["conflicts_with"] == body[0]["id"] == body[1]["id"]


def test_the_history_names_the_agent_and_token_of_every_write_folded_or_not(alice_api, alice):
    _, secret = token_create(user=alice, name="phone-agent")
    phone = alice_api.__class__()
    phone.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    created = alice_api.post(MEMORIES, {"content": "User lives in Porto"}, format="json").json()
    folded = phone.post(MEMORIES, {"content": "user lives in porto!"}, format="json").json()
    assert folded["id"] == created["id"] and folded["outcome"] == "deduplicated"

    entries = alice_api.get(f"{MEMORIES}{created['id']}/history/").json()["results"]
    assert [(e["content"], e["token"], e["agent"]) for e in entries] == [
        ("user lives in porto!", "phone-agent", "phone-agent"),
        ("User lives in Porto", "test-agent", "test-agent"),
    ]


def test_the_remember_tool_says_what_the_write_did(alice_api):
    def remember(content: str) -> dict:
        body = {"name": "remember", "arguments": {"content": content}}
        answer = alice_api.post("/api/v1/tools/call/", body, format="json").json()
        assert answer["ok"] is True, answer
        return answer["result"]

    first = remember("Team meeting is on Monday")
    again = remember("team meeting is on monday.")
    moved = remember("Team meeting is on Friday")
    assert (first["outcome"], first["conflicts_with"]) == ("new", None)
    assert (again["outcome"], again["id"], again["deduplicated"]) == (
        "deduplicated",
        first["id"],
        True,
    )
    assert (moved["outcome"], moved["conflicts_with"]) == ("conflict", first["id"])


def test_erasing_one_side_of_a_possible_conflict_leaves_the_other_unlinked(alice_api, alice):
    monday = alice_api.post(MEMORIES, {"content": "Team meeting is on Monday"}, format="json")
    friday = alice_api.post(MEMORIES, {"content": "Team meeting is on Friday"}, format="json")
    monday, friday = monday.json(), friday.json()
    assert alice_api.post(f"{MEMORIES}{monday['id']}/erase/").status_code in (200, 204)
    kept = alice_api.get(f"{MEMORIES}{friday['id']}/").json()
    assert kept["conflicts_with"] is None and kept["conflicts"] == []
    assert list(KnowledgeItem.objects.for_user(alice).values_list("content", flat=True)) == [
        "Team meeting is on Friday"
    ]


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        # an agent's remember, then extraction of the same turn (the fuller text stays)
        ("Prefers window seats", "User prefers window seats on long flights",
         "User prefers window seats on long flights"),
        ("User prefers window seats on long flights", "Prefers window seats",
         "User prefers window seats on long flights"),
    ],
)  # fmt: skip
def test_two_texts_that_agree_are_one_memory_in_the_fuller_words(
    alice_api, alice, first, second, kept
):
    stored = alice_api.post(MEMORIES, {"content": first}, format="json").json()
    body = alice_api.post(MEMORIES, {"content": second}, format="json").json()
    assert body["outcome"] == "deduplicated" and body["id"] == stored["id"]
    assert body["conflicts_with"] is None
    active = KnowledgeItem.objects.for_user(alice).active()
    assert list(active.values_list("content", flat=True)) == [kept]


def test_a_batch_folds_a_refinement_into_the_fuller_text(alice_api, alice):
    batch = [
        {"content": "Prefers window seats on long flights"},
        {"content": "Prefers window seats"},
    ]
    body = alice_api.post(MEMORIES, batch, format="json").json()
    assert [b["outcome"] for b in body] == ["new", "deduplicated"]
    active = KnowledgeItem.objects.for_user(alice).active()
    assert list(active.values_list("content", flat=True)) == [
        "Prefers window seats on long flights"
    ]
