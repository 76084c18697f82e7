"""Memory pages that write: add, edit, forget, restore, erase (through the services)."""

import pytest
from django.test import Client

from memory import services
from memory.models import KnowledgeItem, MemoryVersion
from memory.recall import recall
from retrieval.embedding import current_model_id, get_embedder, to_bytes
from tests.web.seed import seed_month

pytestmark = pytest.mark.django_db


def _remember(user, content, **fields):
    return services.memory_create(user=user, content=content, **fields)


def test_add_stores_a_memory_from_the_person(alice_web, alice):
    assert alice_web.get("/memories/new/").status_code == 200
    response = alice_web.post(
        "/memories/new/",
        {
            "content": "Allergic to peanuts.",
            "category": "fact",
            "context": "",
            "entity": "Person:Alice",
            "sensitive": "on",
            "due_at": "",
        },
    )
    item = KnowledgeItem.objects.for_user(alice).get()
    assert response.status_code == 302
    assert response["Location"] == f"/memories/{item.pk}/"
    assert (item.source, item.confidence, item.context) == ("user", 0.8, "global")
    assert item.entity == "person:alice" and item.sensitive


def test_add_reads_the_due_time_in_the_users_time_zone(alice_web, alice):
    from accounts.services import user_settings_update

    user_settings_update(user=alice, timezone="Europe/Lisbon")
    alice_web.post(
        "/memories/new/",
        {"content": "Dentist.", "category": "reminder", "due_at": "2026-07-01T09:30"},
    )
    item = KnowledgeItem.objects.for_user(alice).get()
    assert item.due_at.isoformat() == "2026-07-01T08:30:00+00:00"  # 09:30 summer time in Lisbon


def test_add_folds_a_rewrite_of_the_same_memory_into_it(alice_web, alice):
    existing = _remember(alice, "Prefers tea over coffee.")
    response = alice_web.post(
        "/memories/new/", {"content": "Prefers tea over coffee!", "category": "fact"}, follow=True
    )
    assert KnowledgeItem.objects.for_user(alice).count() == 1
    assert response.redirect_chain[-1][0] == f"/memories/{existing.pk}/"
    assert b"saying the same, so it was updated" in response.content


def test_add_shows_the_services_refusal_next_to_the_field(alice_web, alice):
    response = alice_web.post(
        "/memories/new/",
        {"content": "my password is hunter2hunter2", "category": "fact"},
    )
    assert response.status_code == 200
    assert "Credentials are never stored in memory" in response.content.decode()
    assert not KnowledgeItem.objects.for_user(alice).exists()


def test_add_requires_content(alice_web, alice):
    response = alice_web.post("/memories/new/", {"content": "   ", "category": "fact"})
    assert response.status_code == 200
    assert b"This field is required" in response.content


def test_edit_changes_only_what_changed(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.", context="home", source="tool")
    KnowledgeItem.objects.filter(pk=item.pk).update(embedding=b"\0" * 8, embedding_model="m")
    form = alice_web.get(f"/memories/{item.pk}/edit/")
    assert form.status_code == 200
    assert b"Prefers tea over coffee." in form.content
    response = alice_web.post(
        f"/memories/{item.pk}/edit/",
        {
            "content": "Prefers green tea.",
            "category": "preference",
            "context": "home",
            "entity": "",
            "domain": "",
        },
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert (item.content, item.category, item.context) == (
        "Prefers green tea.",
        "preference",
        "home",
    )
    # The old vector is gone: the new content's own is stored with the change.
    assert item.embedding_model == current_model_id()
    assert bytes(item.embedding) == to_bytes(get_embedder().embed([item.content])[0])
    assert item.source == "tool"  # the origin stays what it was


def test_edit_keeps_the_earlier_text_as_a_version_with_the_reason(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    alice_web.post(
        f"/memories/{item.pk}/edit/",
        {"content": "Prefers coffee now.", "category": "fact", "context": "global",
         "reason": "changed taste"},
    )  # fmt: skip
    [version] = MemoryVersion.objects.filter(item=item)
    assert (version.content, version.change_source, version.reason) == (
        "Prefers tea over coffee.",
        "user",
        "changed taste",
    )
    page = alice_web.get(f"/memories/{item.pk}/").content.decode()
    assert "Prefers tea over coffee." in page and "changed taste" in page


def test_edit_with_no_change_says_so(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    response = alice_web.post(
        f"/memories/{item.pk}/edit/",
        {"content": "Prefers tea over coffee.", "category": "fact", "context": "global"},
        follow=True,
    )
    assert b"Nothing changed" in response.content


def test_forget_and_restore_round_trip(alice_web, alice):
    item = _remember(alice, "Sarah Chen leads the billing migration project.")
    response = alice_web.post(f"/memories/{item.pk}/forget/")
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.forgotten_at is not None
    assert not alice_web.get("/memories/?q=billing").context["rows"]
    assert b"Forgotten" in alice_web.get(f"/memories/{item.pk}/").content
    alice_web.post(f"/memories/{item.pk}/restore/")
    item.refresh_from_db()
    assert item.forgotten_at is None
    assert alice_web.get("/memories/?q=billing").context["rows"][0]["item"].pk == item.pk


def test_forget_returns_to_a_safe_next_page_only(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    back = alice_web.post(f"/memories/{item.pk}/forget/", {"next": "/memories/?page=2"})
    assert back["Location"] == "/memories/?page=2"
    away = alice_web.post(f"/memories/{item.pk}/restore/", {"next": "https://evil.example/"})
    assert away["Location"] == f"/memories/{item.pk}/"


def test_forget_restore_and_erase_refuse_get(alice_web, alice):
    item = _remember(alice, "Prefers tea over coffee.")
    assert alice_web.get(f"/memories/{item.pk}/forget/").status_code == 405
    assert alice_web.get(f"/memories/{item.pk}/restore/").status_code == 405
    assert alice_web.get(f"/memories/{item.pk}/erase/").status_code == 200  # the confirmation
    item.refresh_from_db()
    assert item.forgotten_at is None


def test_destructive_actions_need_the_csrf_token(alice):
    item = _remember(alice, "Prefers tea over coffee.")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    for action in ("forget", "erase"):
        assert browser.post(f"/memories/{item.pk}/{action}/").status_code == 403
    assert KnowledgeItem.objects.for_user(alice).get().forgotten_at is None


def test_erase_asks_first_then_removes_the_item_for_good(alice_web, alice):
    item = _remember(alice, "Sarah Chen leads the billing migration project.")
    confirm = alice_web.get(f"/memories/{item.pk}/erase/")
    assert b"Erase this memory for good?" in confirm.content
    assert KnowledgeItem.objects.filter(pk=item.pk).exists()
    response = alice_web.post(f"/memories/{item.pk}/erase/")
    assert response.status_code == 302 and response["Location"] == "/memories/"
    assert not KnowledgeItem.objects.filter(pk=item.pk).exists()
    assert not recall(user=alice, query="billing")
    assert alice_web.get(f"/memories/{item.pk}/").status_code == 404


def test_erasing_the_newest_brings_nothing_older_back(alice_web, alice):
    data = seed_month(alice)
    html = alice_web.get(f"/memories/{data['new'].pk}/erase/").content.decode()
    assert "nothing older becomes current again" in html
    alice_web.post(f"/memories/{data['new'].pk}/erase/")
    assert not KnowledgeItem.objects.filter(pk__in=[data["old"].pk, data["new"].pk]).exists()
    assert not MemoryVersion.objects.filter(owner=alice).exists()
    contents = KnowledgeItem.objects.for_user(alice).values_list("content", flat=True)
    assert not [c for c in contents if "Porto" in c or "Braga" in c]


def test_add_suggests_the_users_contexts(alice_web, alice):
    from accounts.services import user_settings_update

    user_settings_update(user=alice, contexts=["garden"])
    _remember(alice, "Prefers tea over coffee.", context="work")
    html = alice_web.get("/memories/new/").content.decode()
    for name in ("garden", "work", "global"):
        assert f'<option value="{name}">' in html


def _alices_item(alice):
    return _remember(alice, "Alice's secret plan for the garden.", source="user")


def _assert_unchanged(item):
    before = (item.content, item.forgotten_at, item.category)
    item.refresh_from_db()
    assert (item.content, item.forgotten_at, item.category) == before


@pytest.mark.cross_user("web-memory-detail")
def test_another_users_memory_is_not_found(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.get(f"/memories/{item.pk}/").status_code == 404
    assert bob_web.get("/memories/999999/").status_code == 404


@pytest.mark.cross_user("web-memory-edit")
def test_another_users_memory_cannot_be_edited(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.get(f"/memories/{item.pk}/edit/").status_code == 404
    response = bob_web.post(
        f"/memories/{item.pk}/edit/", {"content": "pwned", "category": "fact", "context": "global"}
    )
    assert response.status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-forget")
def test_another_users_memory_cannot_be_forgotten(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.post(f"/memories/{item.pk}/forget/").status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-restore")
def test_another_users_memory_cannot_be_restored(bob_web, alice):
    item = _alices_item(alice)
    services.memory_forget(user=alice, item_id=item.pk)
    item.refresh_from_db()
    assert bob_web.post(f"/memories/{item.pk}/restore/").status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-erase")
def test_another_users_memory_cannot_be_erased(bob_web, alice):
    item = _alices_item(alice)
    assert bob_web.get(f"/memories/{item.pk}/erase/").status_code == 404
    assert bob_web.post(f"/memories/{item.pk}/erase/").status_code == 404
    _assert_unchanged(item)


@pytest.mark.cross_user("web-memory-version-restore", "web-memory-version-erase")
def test_another_users_versions_cannot_be_restored_or_erased(bob_web, alice, bob):
    item = _alices_item(alice)
    services.memory_update(user=alice, item_id=item.pk, content="Alice changed this text")
    version = MemoryVersion.objects.get(item=item)
    mine = services.memory_create(user=bob, content="Bob's own note")
    for pk in (item.pk, mine.pk):
        base = f"/memories/{pk}/versions/{version.pk}"
        assert bob_web.post(f"{base}/restore/").status_code == 404
        assert bob_web.get(f"{base}/erase/").status_code == 404
        assert bob_web.post(f"{base}/erase/").status_code == 404
    assert MemoryVersion.objects.get(pk=version.pk).content == version.content
    item.refresh_from_db()
    assert item.content == "Alice changed this text"


@pytest.mark.cross_user("web-memory-add")
def test_adding_always_writes_to_the_signed_in_user(bob_web, alice, bob):
    bob_web.post(
        "/memories/new/",
        {"content": "Bob likes chess.", "category": "fact", "owner": alice.pk, "source": "tool"},
    )
    item = KnowledgeItem.objects.get(content="Bob likes chess.")
    assert item.owner_id == bob.pk and item.source == "user"
    assert not KnowledgeItem.objects.for_user(alice).exists()


def test_editing_other_fields_keeps_a_due_time_with_seconds(alice_web, alice):
    from datetime import UTC, datetime

    due = datetime(2026, 7, 1, 8, 30, 45, tzinfo=UTC)
    item = _remember(alice, "Dentist.", category="reminder", due_at=due, source="user")
    form = alice_web.get(f"/memories/{item.pk}/edit/").content.decode()
    assert 'value="2026-07-01T08:30"' in form
    alice_web.post(
        f"/memories/{item.pk}/edit/",
        {
            "content": "Dentist at 8:30.",
            "category": "reminder",
            "context": "global",
            "due_at": "2026-07-01T08:30",
        },
    )
    item.refresh_from_db()
    assert item.content == "Dentist at 8:30." and item.due_at == due


def test_the_item_page_shows_a_possible_conflict_waiting_without_a_model(alice_web, alice):
    monday = _remember(alice, "Team meeting is on Monday")
    friday = _remember(alice, "Team meeting is on Friday")
    assert friday.conflicts_with_id == monday.pk

    for page, other in ((friday, monday), (monday, friday)):
        body = alice_web.get(f"/memories/{page.pk}/").content.decode()
        assert "Possible conflict" in body and f"/memories/{other.pk}/" in body
        assert "no model is configured, so they wait here" in body
    assert "Possible conflict" not in alice_web.get("/memories/new/").content.decode()


def test_the_list_marks_a_possible_conflict_until_the_older_is_gone(alice_web, alice):
    monday = _remember(alice, "Team meeting is on Monday")
    friday = _remember(alice, "Team meeting is on Friday")
    listed = alice_web.get("/memories/").content.decode()
    assert listed.count("possible conflict</a>") == 1
    assert f'href="/memories/{friday.pk}/#conflicts"' in listed
    services.memory_forget(user=alice, item_id=monday.pk)
    assert "possible conflict</a>" not in alice_web.get("/memories/").content.decode()
