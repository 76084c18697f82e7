"""Settings page: time zone, memory on/off, automatic extraction, steering text, contexts."""

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from accounts.services import user_settings_get, user_settings_update
from memory import services

pytestmark = pytest.mark.django_db

VALID = {
    "timezone": "Europe/Lisbon",
    "memory_enabled": "on",
    "extraction_steering": "Keep work facts; ignore small talk.",
    "contexts": "work\n  home \n\nwork",
}


def test_it_shows_the_current_settings(alice_web, alice):
    user_settings_update(user=alice, timezone="Asia/Tokyo", contexts=["garden"])
    response = alice_web.get("/settings/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<option value="Asia/Tokyo" selected>' in html
    assert "garden" in html


def test_saving_changes_every_setting(alice_web, alice):
    response = alice_web.post("/settings/", VALID)
    assert response.status_code == 302
    saved = user_settings_get(alice)
    assert saved.timezone == "Europe/Lisbon"
    assert saved.memory_enabled is True and saved.auto_extract is False
    assert saved.extraction_steering == "Keep work facts; ignore small talk."
    assert saved.contexts == ["home", "work"]


def test_an_unknown_time_zone_is_refused(alice_web, alice):
    response = alice_web.post("/settings/", {**VALID, "timezone": "Mars/Olympus"})
    assert response.status_code == 200
    assert b"Select a valid choice" in response.content
    assert user_settings_get(alice).timezone == "UTC"


def test_turning_memory_off_stops_agents_storing(alice_web, alice):
    alice_web.post("/settings/", {**VALID, "memory_enabled": ""})
    with pytest.raises(ValidationError):
        services.memory_create(user=alice, content="Likes jazz.", source="tool")


def test_pages_show_times_in_the_users_time_zone(alice_web, alice):
    item = services.memory_create(
        user=alice,
        content="Dentist.",
        category="reminder",
        due_at=datetime(2026, 7, 1, 8, 30, tzinfo=UTC),
        source="user",
    )
    assert b"Jul 1, 2026 08:30" in alice_web.get(f"/memories/{item.pk}/").content
    user_settings_update(user=alice, timezone="Asia/Tokyo")
    assert b"Jul 1, 2026 17:30" in alice_web.get(f"/memories/{item.pk}/").content


@pytest.mark.cross_user("web-settings")
def test_saving_settings_changes_only_the_signed_in_user(alice_web, alice, bob):
    user_settings_update(user=bob, timezone="Asia/Tokyo", contexts=["bob-context"])
    html = alice_web.get("/settings/").content.decode()
    assert "bob-context" not in html
    alice_web.post("/settings/", VALID)
    assert user_settings_get(bob).timezone == "Asia/Tokyo"
    assert user_settings_get(bob).contexts == ["bob-context"]
