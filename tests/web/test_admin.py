"""Django admin: staff only, sensitive content masked in lists, curation through services."""

import pytest
from django.test import Client

from accounts.services import token_create
from memory import services
from memory.admin import MASK
from memory.models import KnowledgeItem
from memory.recall import recall
from retrieval.embedding import current_model_id, get_embedder, to_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.org", "root-pass-123")


@pytest.fixture
def staff_web(staff) -> Client:
    client = Client()
    client.force_login(staff)
    return client


@pytest.mark.parametrize(
    "url",
    ["/admin/", "/admin/memory/knowledgeitem/", "/admin/conversations/turn/"],
)
def test_a_non_staff_user_cannot_reach_the_admin(alice_web, alice, url):
    services.memory_create(user=alice, content="Prefers tea over coffee.")
    response = alice_web.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    assert b"Prefers tea" not in response.content


def test_a_non_staff_user_cannot_log_in_to_the_admin(client, alice):
    response = client.post(
        "/admin/login/?next=/admin/", {"username": "alice", "password": "alice-pass-123"}
    )
    assert response.status_code == 200  # the form again, with an error
    assert b"staff account" in response.content
    assert client.get("/admin/").status_code == 302


def test_sensitive_content_is_masked_in_the_admin_list(staff_web, alice):
    secret = services.memory_create(user=alice, content="Blood type is O negative.", sensitive=True)
    services.memory_create(user=alice, content="Prefers tea over coffee.")
    assert "O negative" not in str(secret)  # titles, checkbox labels and the admin log
    response = staff_web.get("/admin/memory/knowledgeitem/")
    assert response.status_code == 200
    html = response.content.decode()
    assert MASK in html
    assert "Blood type is O negative." not in html
    assert "Prefers tea over coffee." in html


def test_staff_forget_and_restore_actions_go_through_the_services(staff_web, alice):
    item = services.memory_create(user=alice, content="Sarah leads the billing migration.")
    response = staff_web.post(
        "/admin/memory/knowledgeitem/",
        {"action": "forget_items", "_selected_action": [item.pk]},
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.forgotten_at is not None
    assert recall(user=alice, query="billing") == []
    staff_web.post(
        "/admin/memory/knowledgeitem/",
        {"action": "restore_items", "_selected_action": [item.pk]},
    )
    assert [h.item.pk for h in recall(user=alice, query="billing")] == [item.pk]


def test_staff_erase_action_removes_the_item(staff_web, alice):
    item = services.memory_create(user=alice, content="Sarah leads the billing migration.")
    staff_web.post(
        "/admin/memory/knowledgeitem/",
        {"action": "erase_items", "_selected_action": [item.pk]},
    )
    assert not KnowledgeItem.objects.filter(pk=item.pk).exists()
    assert recall(user=alice, query="billing") == []


def test_staff_edits_go_through_memory_update(staff_web, alice):
    item = services.memory_create(user=alice, content="Prefers tea over coffee.", source="tool")
    KnowledgeItem.objects.filter(pk=item.pk).update(embedding=b"\0" * 8, embedding_model="m")
    form = staff_web.get(f"/admin/memory/knowledgeitem/{item.pk}/change/")
    assert form.status_code == 200
    response = staff_web.post(
        f"/admin/memory/knowledgeitem/{item.pk}/change/",
        {
            "category": "preference",
            "content": "Prefers green tea.",
            "domain": "",
            "context": "global",
            "entity": "",
            "source": "tool",
            "confidence": "0.7",
            "metadata": "{}",
            "due_at_0": "",
            "due_at_1": "",
            "reminded_at_0": "",
            "reminded_at_1": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    item.refresh_from_db()
    assert (item.content, item.category) == ("Prefers green tea.", "preference")
    # The old vector is gone: the new content's own is stored with the change.
    assert item.embedding_model == current_model_id()
    assert bytes(item.embedding) == to_bytes(get_embedder().embed([item.content])[0])
    assert item.owner_id == alice.pk
    [version] = item.versions.all()  # the earlier text is kept, written by a person
    assert (version.content, version.change_source) == ("Prefers tea over coffee.", "user")
    page = staff_web.get(f"/admin/memory/knowledgeitem/{item.pk}/change/").content.decode()
    assert "Prefers tea over coffee." in page


def test_an_items_page_offers_no_choice_of_other_users_items_or_tokens(staff_web, alice, bob):
    token_create(user=bob, name="bobs-secret-agent")
    services.memory_create(user=bob, content="Bob's team meeting is on Monday")
    monday = services.memory_create(user=alice, content="Team meeting is on Monday")
    friday = services.memory_create(user=alice, content="Team meeting is on Friday")
    page = staff_web.get(f"/admin/memory/knowledgeitem/{friday.pk}/change/").content.decode()
    assert "bobs-secret-agent" not in page and "Bob&#x27;s team meeting" not in page
    assert 'name="conflicts_with"' not in page and 'name="token"' not in page
    assert f"{monday.category}: {monday.content}" in page  # shown, read only
