"""A memory's history through the API: every edit keeps a version, restore is explicit,
erase removes one version's text and nothing older comes back by itself."""

import pytest

from accounts.services import token_create
from memory import lineage, services
from memory.corpus import KNOWLEDGE_FTS
from memory.models import KnowledgeItem, MemoryVersion
from retrieval import keyword
from tests.mcp_rpc import mcp_tool
from tests.support import assert_error

pytestmark = pytest.mark.django_db
MEMORIES = "/api/v1/memories/"


def history(client, pk: int, **params) -> dict:
    response = client.get(f"{MEMORIES}{pk}/history/", params)
    assert response.status_code == 200, response.content
    return response.json()


def edit(client, pk: int, content: str, **more) -> dict:
    response = client.patch(f"{MEMORIES}{pk}/", {"content": content, **more}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_editing_twice_keeps_three_versions_newest_first(alice_api, alice):
    created = alice_api.post(MEMORIES, {"content": "User lives in Porto"}, format="json").json()
    edit(alice_api, created["id"], "User lives in Lisbon", reason="moved in May")
    after = edit(alice_api, created["id"], "User lives in Madrid")

    body = history(alice_api, created["id"])

    assert after["id"] == created["id"] and body["item_id"] == created["id"]
    entries = body["results"]
    assert [e["content"] for e in entries] == [
        "User lives in Madrid",
        "User lives in Lisbon",
        "User lives in Porto",
    ]
    assert [e["current"] for e in entries] == [True, False, False]
    assert entries[0]["id"] is None and all(e["id"] for e in entries[1:])
    assert [e["token"] for e in entries] == ["test-agent"] * 3  # the creation's too
    assert [e["source"] for e in entries] == ["tool"] * 3
    assert [e["reason"] for e in entries] == ["", "moved in May", ""]
    assert entries[0]["until"] is None and entries[1]["until"] == entries[0]["since"]
    assert entries[2]["since"] == created["created_at"]


def test_a_change_that_only_touches_confidence_or_reminders_keeps_no_version(alice_api, alice):
    item = services.memory_create(user=alice, content="Dentist on Friday", category="reminder")
    alice_api.patch(f"{MEMORIES}{item.pk}/", {"reminded_at": "now"}, format="json")
    alice_api.patch(f"{MEMORIES}{item.pk}/", {"confidence": 0.9}, format="json")
    assert len(history(alice_api, item.pk)["results"]) == 1


def test_the_token_name_stays_when_the_token_is_deleted(alice_api, alice):
    token, _ = token_create(user=alice, name="old-agent")
    item = services.memory_create(user=alice, content="Prefers tea")
    services.memory_update(user=alice, item_id=item.pk, token=token, content="Prefers green tea")
    token.delete()
    assert [e["token"] for e in history(alice_api, item.pk)["results"]] == ["old-agent", ""]


def test_restoring_a_version_brings_its_text_back_and_keeps_the_current_one(alice_api, alice):
    item = services.memory_create(user=alice, content="User lives in Porto", context="home")
    edit(alice_api, item.pk, "User lives in Lisbon", context="travel")
    [old] = history(alice_api, item.pk)["results"][1:]

    response = alice_api.post(f"{MEMORIES}{item.pk}/history/{old['id']}/restore/")

    assert response.status_code == 200, response.content
    assert (response.json()["content"], response.json()["context"]) == (
        "User lives in Porto",
        "home",
    )
    entries = history(alice_api, item.pk)["results"]
    assert [e["content"] for e in entries] == [
        "User lives in Porto",
        "User lives in Lisbon",
        "User lives in Porto",
    ]
    assert entries[0]["reason"].startswith("restored the version")
    assert_error(
        alice_api.post(
            f"{MEMORIES}{item.pk}/history/{old['id']}/restore/", {"x": 1}, format="json"
        ),
        400,
    )


def test_erasing_the_newest_brings_nothing_older_back(alice_api, alice):
    porto = services.memory_create(user=alice, content="User lives in Porto")
    lisbon = services.memory_create(user=alice, content="User lives in Lisbon now")
    lineage.memory_supersede_by(user=alice, item_id=porto.pk, by_id=lisbon.pk)
    edit(alice_api, lisbon.pk, "User lives in Lisbon, Alfama")

    assert alice_api.post(f"{MEMORIES}{lisbon.pk}/erase/").status_code == 204

    assert not KnowledgeItem.objects.for_user(alice).exists()
    assert not MemoryVersion.objects.exists()
    assert alice_api.get(MEMORIES).json()["results"] == []
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
    assert keyword.search(KNOWLEDGE_FTS, "Porto", where, 5) == []


def test_erasing_a_replaced_item_keeps_the_chain_to_the_current_one(alice_api, alice):
    porto = services.memory_create(user=alice, content="User lives in Porto")
    braga = services.memory_create(user=alice, content="User lives in Braga")
    lisbon = services.memory_create(user=alice, content="User lives in Lisbon")
    lineage.memory_supersede_by(user=alice, item_id=porto.pk, by_id=braga.pk)
    lineage.memory_supersede_by(user=alice, item_id=braga.pk, by_id=lisbon.pk)

    assert alice_api.post(f"{MEMORIES}{braga.pk}/erase/").status_code == 204

    active = KnowledgeItem.objects.for_user(alice).active()
    assert list(active.values_list("content", flat=True)) == ["User lives in Lisbon"]
    entries = history(alice_api, lisbon.pk)["results"]
    assert [(e["content"], e["replaced_item"]) for e in entries] == [
        ("User lives in Lisbon", False),
        ("User lives in Porto", True),
    ]


def test_erasing_one_version_removes_only_its_text(alice_api, alice):
    item = services.memory_create(user=alice, content="Project codename zanzibar")
    edit(alice_api, item.pk, "Project codename kestrel")
    edit(alice_api, item.pk, "Project codename osprey")
    versions = history(alice_api, item.pk)["results"]
    kestrel = next(e for e in versions if "kestrel" in e["content"])

    response = alice_api.delete(f"{MEMORIES}{item.pk}/history/{kestrel['id']}/")

    assert response.status_code == 204
    left = [e["content"] for e in history(alice_api, item.pk)["results"]]
    assert left == ["Project codename osprey", "Project codename zanzibar"]
    assert not MemoryVersion.objects.filter(content__contains="kestrel").exists()
    where = keyword.Where(owner_id=alice.pk).add("t.owner_id = %s", alice.pk)
    assert keyword.search(KNOWLEDGE_FTS, "kestrel", where, 5) == []
    assert_error(alice_api.delete(f"{MEMORIES}{item.pk}/history/{kestrel['id']}/"), 404)


def test_a_replaced_id_leads_to_the_item_that_replaced_it(alice_api, alice):
    old = services.memory_create(user=alice, content="Works at Initech")
    new = services.memory_create(user=alice, content="Works at Globex")
    lineage.memory_supersede_by(user=alice, item_id=old.pk, by_id=new.pk)

    got = alice_api.get(f"{MEMORIES}{old.pk}/").json()
    assert got["superseded_by"] == new.pk
    assert history(alice_api, old.pk)["item_id"] == new.pk
    changed = edit(alice_api, old.pk, "Works at Globex as a lead")
    assert changed["id"] == new.pk
    called = alice_api.post(
        "/api/v1/tools/call/",
        {"name": "update_memory", "arguments": {"id": old.pk, "content": "Works at Globex, CTO"}},
        format="json",
    ).json()
    assert called["result"]["id"] == new.pk
    assert KnowledgeItem.objects.get(pk=old.pk).content == "Works at Initech"


def test_the_update_memory_tool_keeps_a_version_with_the_agents_token(alice_api, alice):
    item = services.memory_create(user=alice, content="Uses vim")
    called = alice_api.post(
        "/api/v1/tools/call/",
        {"name": "update_memory", "arguments": {"id": item.pk, "content": "Uses neovim"}},
        format="json",
    )
    assert called.status_code == 200, called.content
    [version] = MemoryVersion.objects.for_user(alice)
    assert (version.content, version.change_source, version.token_name) == (
        "Uses vim",
        "tool",
        "test-agent",
    )


@pytest.mark.parametrize("params", [{"bogus": "1"}, {"limit": 0}, {"limit": "all"}])
def test_history_refuses_unknown_or_bad_parameters(alice_api, alice, params):
    item = services.memory_create(user=alice, content="Has a cat")
    assert_error(alice_api.get(f"{MEMORIES}{item.pk}/history/", params), 400)


def test_a_forgotten_item_has_no_history_until_restored(alice_api, alice):
    item = services.memory_create(user=alice, content="Has a cat")
    services.memory_forget(user=alice, item_id=item.pk)
    assert_error(alice_api.get(f"{MEMORIES}{item.pk}/history/"), 404, "not_found")


@pytest.mark.cross_user("api-memory-history", "api-memory-version", "api-memory-version-restore")
def test_another_users_history_and_versions_are_a_404_and_change_nothing(
    alice_api, bob_api, alice, bob
):
    item = services.memory_create(user=alice, content="Alice lives in Porto")
    edit(alice_api, item.pk, "Alice lives in Lisbon")
    version = MemoryVersion.objects.get()
    mine = services.memory_create(user=bob, content="Bob lives in Oslo")
    absent = bob_api.get(f"{MEMORIES}{10**9}/history/").json()
    for url, method in (
        (f"{MEMORIES}{item.pk}/history/", "get"),
        (f"{MEMORIES}{item.pk}/history/{version.pk}/", "delete"),
        (f"{MEMORIES}{item.pk}/history/{version.pk}/restore/", "post"),
        # Bob's own item with Alice's version id: still not found.
        (f"{MEMORIES}{mine.pk}/history/{version.pk}/", "delete"),
        (f"{MEMORIES}{mine.pk}/history/{version.pk}/restore/", "post"),
    ):
        theirs = getattr(bob_api, method)(url)
        assert_error(theirs, 404, "not_found")
        assert theirs.json() == absent
    assert MemoryVersion.objects.get().content == "Alice lives in Porto"
    assert KnowledgeItem.objects.get(pk=item.pk).content == "Alice lives in Lisbon"


def test_an_update_through_mcp_keeps_a_version_with_the_agents_token(alice_api, alice):
    item = services.memory_create(user=alice, content="Miso is a dog")
    changed = mcp_tool(
        alice_api, "update_memory", {"id": item.pk, "content": "Miso is a cat", "reason": "oops"}
    )
    assert not changed["isError"], changed
    [version] = MemoryVersion.objects.for_user(alice)
    assert (version.content, version.token_name, version.reason) == (
        "Miso is a dog",
        "test-agent",
        "oops",
    )
