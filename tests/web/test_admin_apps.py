"""Each app's admin: registered by its owner, saving only through the owner's services.

Settings and knowledge save through their services (a refusal is an error message, the
row unchanged); conversations are read-only (erasing goes through privacy); findings
are decided by their actions only.
"""

import pytest
from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.test import Client

from accounts.models import ApiToken, UserSettings
from accounts.services import token_create, user_settings_get, user_settings_update
from conversations.models import Session, ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from discovery import services as discovery
from discovery.models import Finding
from memory import services as memory
from memory.changes import items_generation
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.org", "root-pass-123")


@pytest.fixture
def staff_web(staff) -> Client:
    client = Client()
    client.force_login(staff)
    return client


def page_text(response) -> str:
    return response.content.decode()


# --- Registration ---------------------------------------------------------------------


@pytest.mark.parametrize("model", [ApiToken, UserSettings])
def test_the_accounts_app_registers_its_own_models_in_the_admin(model):
    assert type(admin.site._registry[model]).__module__ == "accounts.admin"


# --- User settings ----------------------------------------------------------------------


def settings_form(**changes) -> dict:
    """A full POST of the settings change form (checkboxes: present means on)."""
    data = {
        "timezone": "UTC",
        "memory_enabled": "on",
        "auto_extract": "on",
        "extraction_steering": "",
        "contexts": "[]",
    }
    data.update(changes)
    return {name: value for name, value in data.items() if value is not None}


def test_the_settings_admin_refuses_an_unknown_time_zone_and_keeps_the_row(staff_web, alice):
    row = user_settings_update(user=alice, timezone="Europe/Paris")
    url = f"/admin/accounts/usersettings/{row.pk}/change/"
    response = staff_web.post(url, settings_form(timezone="Mars/Olympus_Mons"))
    assert response.status_code == 302
    assert response["Location"] == url  # back to the form, not to the list
    page = staff_web.get(url)
    assert "Unknown time zone." in page_text(page)
    assert "was changed successfully" not in page_text(page)
    row.refresh_from_db()
    assert row.timezone == "Europe/Paris"
    assert not LogEntry.objects.exists()  # no change is recorded


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"extraction_steering": "x" * 4001}, "At most 4000 characters."),
        ({"contexts": '"work"'}, "Must be a list of names."),
        ({"contexts": "[1, 2]"}, "Must be a list of names."),
    ],
)
def test_the_settings_admin_refuses_what_the_service_refuses(staff_web, alice, changes, message):
    row = user_settings_update(user=alice, timezone="Europe/Paris", contexts=["work"])
    url = f"/admin/accounts/usersettings/{row.pk}/change/"
    response = staff_web.post(url, settings_form(timezone="Europe/Paris", **changes), follow=True)
    assert message in page_text(response)
    row.refresh_from_db()
    assert (row.timezone, row.contexts, row.extraction_steering) == ("Europe/Paris", ["work"], "")


def test_the_settings_admin_saves_a_good_change_through_the_service(staff_web, alice):
    row = user_settings_get(alice)
    url = f"/admin/accounts/usersettings/{row.pk}/change/"
    response = staff_web.post(
        url,
        settings_form(
            timezone="Europe/Paris",
            auto_extract=None,
            contexts='[" work ", "home", "work", " "]',
        ),
    )
    assert response.status_code == 302
    assert response["Location"] == "/admin/accounts/usersettings/"
    row.refresh_from_db()
    assert row.timezone == "Europe/Paris"
    assert row.auto_extract is False
    assert row.contexts == ["home", "work"]  # the service's normalisation: trimmed, unique
    assert row.user_id == alice.pk
    assert LogEntry.objects.get().object_id == str(row.pk)


def test_the_settings_admin_cannot_move_a_row_to_another_user(staff_web, alice, bob):
    row = user_settings_get(alice)
    url = f"/admin/accounts/usersettings/{row.pk}/change/"
    staff_web.post(url, settings_form(user=bob.pk, timezone="Europe/Paris"))
    row.refresh_from_db()
    assert (row.user_id, row.timezone) == (alice.pk, "Europe/Paris")


def test_settings_rows_cannot_be_added_or_deleted_in_the_admin(staff_web, alice):
    row = user_settings_get(alice)
    assert staff_web.get("/admin/accounts/usersettings/add/").status_code == 403
    assert staff_web.post("/admin/accounts/usersettings/add/", settings_form()).status_code == 403
    delete = f"/admin/accounts/usersettings/{row.pk}/delete/"
    assert staff_web.post(delete, {"post": "yes"}).status_code == 403
    listing = staff_web.get("/admin/accounts/usersettings/")
    assert 'value="delete_selected"' not in page_text(listing)
    staff_web.post(
        "/admin/accounts/usersettings/",
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert UserSettings.objects.filter(pk=row.pk).exists()


# --- API tokens (moved, unchanged) ------------------------------------------------------


def test_the_token_admin_still_revokes_through_the_service_and_adds_nothing(staff_web, alice):
    token, _secret = token_create(user=alice, name="laptop")
    listing = staff_web.get("/admin/accounts/apitoken/")
    assert listing.status_code == 200
    assert "laptop" in page_text(listing)
    assert token.key_hash not in page_text(listing)
    assert staff_web.get("/admin/accounts/apitoken/add/").status_code == 403
    response = staff_web.post(
        "/admin/accounts/apitoken/", {"action": "revoke", "_selected_action": [token.pk]}
    )
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


# --- Knowledge --------------------------------------------------------------------------


def knowledge_form(**changes) -> dict:
    data = {
        "category": "fact",
        "content": "Prefers tea over coffee.",
        "domain": "",
        "context": "global",
        "entity": "",
        "source": "user",
        "confidence": "0.9",
        "metadata": "{}",
        "due_at_0": "",
        "due_at_1": "",
        "reminded_at_0": "",
        "reminded_at_1": "",
    }
    data.update(changes)
    return data


def test_a_knowledge_admin_edit_bumps_the_owners_index_generation(staff_web, alice):
    item = memory.memory_create(user=alice, content="Prefers tea over coffee.", source="user")
    before = items_generation(alice.pk)
    response = staff_web.post(
        f"/admin/memory/knowledgeitem/{item.pk}/change/",
        knowledge_form(content="Prefers green tea.", entity="  Tea  "),
    )
    assert response.status_code == 302
    assert items_generation(alice.pk) > before  # searches see the edit at once
    item.refresh_from_db()
    assert (item.content, item.entity) == ("Prefers green tea.", "tea")  # cleaned as usual


def test_the_knowledge_admin_refuses_a_credential_and_keeps_the_item(staff_web, alice):
    item = memory.memory_create(user=alice, content="Prefers tea over coffee.", source="user")
    before = items_generation(alice.pk)
    url = f"/admin/memory/knowledgeitem/{item.pk}/change/"
    response = staff_web.post(url, knowledge_form(content="the wifi password is hunter2"))
    assert response.status_code == 302
    assert response["Location"] == url
    page = page_text(staff_web.get(url))
    assert "Credentials are never stored in memory." in page
    assert "was changed successfully" not in page
    item.refresh_from_db()
    assert item.content == "Prefers tea over coffee."
    assert items_generation(alice.pk) == before
    assert not LogEntry.objects.exists()


def test_the_knowledge_admin_refuses_to_add_a_credential(staff_web, alice):
    url = "/admin/memory/knowledgeitem/add/"
    response = staff_web.post(
        url, knowledge_form(owner=alice.pk, content="my key is sk-abcdefghijklmnopqrstuvwx")
    )
    assert response.status_code == 302
    assert response["Location"] == url
    assert "Credentials are never stored in memory." in page_text(staff_web.get(url))
    assert not KnowledgeItem.objects.exists()
    assert not LogEntry.objects.exists()


def test_a_knowledge_admin_add_folds_into_a_near_duplicate_like_the_service(staff_web, alice):
    item = memory.memory_create(user=alice, content="Prefers tea over coffee.", source="user")
    response = staff_web.post("/admin/memory/knowledgeitem/add/", knowledge_form(owner=alice.pk))
    assert response.status_code == 302
    assert list(KnowledgeItem.objects.values_list("pk", flat=True)) == [item.pk]


# --- Conversations: read-only -----------------------------------------------------------


@pytest.fixture
def conversation(alice):
    turn = turn_append(
        user=alice, session_id="s-1", role="user", content="Tell me about the billing work."
    )
    call = tool_call_record(user=alice, tool_name="recall", session_id="s-1")
    return turn.session, turn, call


def edits(kind: str, session: Session, turn: Turn, call: ToolCall) -> tuple[object, dict]:
    """The row of `kind` and a POST that today's plain ModelAdmin would accept as a change."""
    when = {"_0": "2024-01-02", "_1": "10:00:00"}
    stamp = lambda name: {f"{name}{suffix}": value for suffix, value in when.items()}  # noqa: E731
    empty = lambda name: {f"{name}_0": "", f"{name}_1": ""}  # noqa: E731
    if kind == "session":
        data = {
            "owner": session.owner_id,
            "session_id": "rewritten",
            "context": "global",
            "summary": "",
            "consolidation_attempts": "0",
            **stamp("created_at"),
            **stamp("last_turn_at"),
            **empty("consolidated_at"),
        }
        return session, data
    if kind == "turn":
        data = {
            "owner": turn.owner_id,
            "session": session.pk,
            "role": "user",
            "speaker": "",
            "content": "Rewritten by staff.",
            "context": "global",
            "extraction_status": "",
            "extraction_error": "",
            "extraction_attempts": "0",
            **stamp("timestamp"),
            **stamp("created_at"),
            **empty("consolidated_at"),
        }
        return turn, data
    data = {
        "owner": call.owner_id,
        "session": session.pk,
        "tool_name": "rewritten",
        "args": "{}",
        "result_summary": "",
        "error": "",
        "duration_ms": "",
        "success": "on",
        **stamp("timestamp"),
    }
    return call, data


def snapshot(row) -> dict:
    return type(row).objects.filter(pk=row.pk).values().get()


@pytest.mark.parametrize("model", ["session", "turn", "toolcall"])
def test_the_conversation_admins_show_rows_but_refuse_to_change_them(
    staff_web, conversation, model
):
    row, data = edits(model, *conversation)
    before = snapshot(row)
    url = f"/admin/conversations/{model}/{row.pk}/change/"
    page = staff_web.get(url)
    assert page.status_code == 200  # staff still see it
    assert 'name="_save"' not in page_text(page)
    assert staff_web.post(url, data).status_code == 403
    assert snapshot(row) == before
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize("model", ["session", "turn", "toolcall"])
def test_the_conversation_admins_offer_no_add_and_no_delete(staff_web, conversation, model):
    row, data = edits(model, *conversation)
    listing = staff_web.get(f"/admin/conversations/{model}/")
    assert listing.status_code == 200
    assert f"/admin/conversations/{model}/add/" not in page_text(listing)
    assert staff_web.get(f"/admin/conversations/{model}/add/").status_code == 403
    assert staff_web.post(f"/admin/conversations/{model}/add/", data).status_code == 403
    delete = f"/admin/conversations/{model}/{row.pk}/delete/"
    assert staff_web.post(delete, {"post": "yes"}).status_code == 403
    assert 'value="delete_selected"' not in page_text(listing)
    staff_web.post(
        f"/admin/conversations/{model}/",
        {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"},
    )
    assert (Session.objects.count(), Turn.objects.count(), ToolCall.objects.count()) == (1, 1, 1)


def test_the_conversation_admins_still_search(staff_web, conversation):
    response = staff_web.get("/admin/conversations/turn/", {"q": "billing"})
    assert "Tell me about the billing work." in page_text(response)
    response = staff_web.get("/admin/conversations/turn/", {"q": "nothing-like-it"})
    assert "Tell me about the billing work." not in page_text(response)


# --- Findings ---------------------------------------------------------------------------


@pytest.fixture
def finding(alice) -> Finding:
    user_settings_update(user=alice, discovery_consent=True)
    result = discovery.finding_propose_many(
        user=alice, findings=[{"content": "Programs in Rust", "scanner": "projects"}]
    )
    return result.created[0]


def test_findings_cannot_be_deleted_or_saved_in_the_admin(staff_web, finding):
    url = f"/admin/discovery/finding/{finding.pk}/"
    assert staff_web.get(f"{url}change/").status_code == 200
    assert staff_web.post(f"{url}change/", {}).status_code == 403
    assert staff_web.post(f"{url}delete/", {"post": "yes"}).status_code == 403
    staff_web.post(
        "/admin/discovery/finding/",
        {"action": "delete_selected", "_selected_action": [finding.pk], "post": "yes"},
    )
    assert Finding.objects.filter(pk=finding.pk, status="pending").exists()
    assert not LogEntry.objects.exists()


def test_findings_are_still_decided_by_the_admin_actions(staff_web, finding):
    response = staff_web.post(
        "/admin/discovery/finding/", {"action": "approve", "_selected_action": [finding.pk]}
    )
    assert response.status_code == 302
    finding.refresh_from_db()
    assert finding.status == "approved"
    assert KnowledgeItem.objects.get(pk=finding.knowledge_id).content == "Programs in Rust"
