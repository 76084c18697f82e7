"""What is used, pinned or important stays; decay settings; lessons retire on evidence.

Everything through the API as an agent would, then the decay job as the schedule runs it.
"""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from learning.tool_errors import tool_errors_sync
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db
MEMORIES = "/api/v1/memories/"


def remember(client, content: str, **fields) -> int:
    response = client.post(MEMORIES, {"content": content, **fields}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def age(*ids: int, days: int) -> None:
    """As if stored (and last used) `days` ago."""
    then = timezone.now() - timedelta(days=days)
    KnowledgeItem.objects.filter(pk__in=ids).update(
        created_at=then, updated_at=then, last_used=None
    )


def decay() -> None:
    call_command("memory_decay", stdout=StringIO())


def active(pk: int) -> bool:
    return KnowledgeItem.objects.get(pk=pk).forgotten_at is None


def test_a_pinned_memory_never_fades_and_the_api_shows_the_pin(alice_api):
    pinned = remember(alice_api, "User's name is Alice Moreau", pinned=True)
    plain = remember(alice_api, "User once tried a kumquat")
    assert alice_api.get(f"{MEMORIES}{pinned}/").json()["pinned"] is True
    age(pinned, plain, days=400)
    decay()
    assert active(pinned) and not active(plain)
    # Unpinning through PATCH makes it ordinary again.
    assert (
        alice_api.patch(f"{MEMORIES}{pinned}/", {"pinned": False}, format="json").json()["pinned"]
        is False
    )


def test_a_memory_shown_in_the_system_prompt_survives_decay(alice_api):
    name = remember(alice_api, "User is called Alice", category="preference")
    unseen = remember(alice_api, "User jotted down a parking spot", category="note")
    age(name, unseen, days=200)
    prompt = alice_api.get("/api/v1/prompt/system/").json()["prompt"]
    assert "User is called Alice" in prompt and "parking" not in prompt
    decay()
    assert active(name) and not active(unseen)


def test_being_shown_counts_at_most_once_a_day(alice_api):
    name = remember(alice_api, "User is called Alice", category="preference")
    alice_api.get("/api/v1/prompt/system/")
    first = KnowledgeItem.objects.get(pk=name).last_used
    assert first is not None
    alice_api.get("/api/v1/prompt/system/")
    alice_api.get("/api/v1/prompt/profile/")
    assert KnowledgeItem.objects.get(pk=name).last_used == first
    assert KnowledgeItem.objects.get(pk=name).use_count == 0  # shown is not recalled


def test_items_due_in_the_per_turn_context_count_as_used(alice_api):
    due = (timezone.now() + timedelta(days=1)).isoformat()
    reminder = remember(alice_api, "Dentist appointment", category="reminder", due_at=due)
    KnowledgeItem.objects.filter(pk=reminder).update(last_used=None)
    assert "Dentist" in alice_api.get("/api/v1/prompt/context/").json()["context"]
    assert KnowledgeItem.objects.get(pk=reminder).last_used is not None


def test_decay_settings_change_what_fades(alice_api, settings):
    item = remember(alice_api, "User once tried a kumquat")
    age(item, days=200)
    settings.GAIA_DECAY_HALF_LIFE_DAYS = 1000.0
    decay()
    assert active(item)
    settings.GAIA_DECAY_HALF_LIFE_DAYS = 30.0
    settings.GAIA_DECAY_PRUNE_AGE_DAYS = 365.0
    decay()
    assert active(item)  # younger than the prune age
    settings.GAIA_DECAY_PRUNE_AGE_DAYS = 30.0
    decay()
    assert not active(item)


def test_importance_is_stored_by_category_and_ranks_the_profile(alice_api):
    note = remember(alice_api, "User mentioned the weather was nice", category="note")
    name = remember(alice_api, "User's name is Alice", category="preference")
    rated = remember(alice_api, "User maybe likes jazz", importance=0.1)
    got = {pk: alice_api.get(f"{MEMORIES}{pk}/").json()["importance"] for pk in (note, name)}
    assert got[name] > got[note]
    assert alice_api.get(f"{MEMORIES}{rated}/").json()["importance"] == 0.1
    bullets = alice_api.get("/api/v1/prompt/profile/").json()["bullets"]
    assert bullets == ["User's name is Alice", "User maybe likes jazz"]  # a note is no bullet
    scoped = alice_api.get("/api/v1/prompt/profile/", {"context": "work"}).json()
    assert scoped["source"] == "raw" and scoped["bullets"] == bullets
    assert alice_api.get("/api/v1/prompt/profile/", {"nope": 1}).status_code == 400


def _call(client, args: dict, *, success: bool, error: str = "") -> None:
    body = {"tool_name": "execute_code", "args": args, "success": success, "error": error}
    assert client.post("/api/v1/tool-calls/", body, format="json").status_code == 201


def _lessons(alice, active: bool = True):
    items = KnowledgeItem.objects.for_user(alice).filter(category="error", source="error_auto")
    return items.filter(forgotten_at__isnull=active)


def test_a_lesson_survives_other_successes_and_retires_when_the_same_call_succeeds(
    alice, alice_api, client
):
    _call(alice_api, {"code": "import torch"}, success=False, error="No module named 'torch'")
    tool_errors_sync(user_id=alice.pk, tool_name="execute_code")
    assert _lessons(alice).count() == 1
    _call(alice_api, {"code": "print(1 + 1)"}, success=True)
    assert tool_errors_sync(user_id=alice.pk, tool_name="execute_code")["status"] == "kept"
    assert _lessons(alice).count() == 1
    _call(alice_api, {"code": "import torch"}, success=True)  # torch installed since
    assert tool_errors_sync(user_id=alice.pk, tool_name="execute_code")["status"] == "retired"
    (retired,) = _lessons(alice, active=False)
    assert retired.metadata["retired_reason"] == "the same call later succeeded"
    client.force_login(alice)
    page = client.get(f"/memories/{retired.pk}/")
    assert page.status_code == 200
    assert b"Lesson retired: the same call later succeeded" in page.content
