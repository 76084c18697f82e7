"""Slips a person met on the pages: a label said "optional" twice, metadata read as a
Python dict, the admin wrote "User settingss", the footer promised nobody could see
memory that staff can read in the admin."""

import pytest
from django.test import Client

from accounts.services import user_settings_update
from memory import services
from memory.models import KnowledgeItem

pytestmark = pytest.mark.django_db


def test_the_edit_form_says_optional_once(alice_web, alice):
    item = services.memory_create(user=alice, content="Plays padel on Tuesdays")
    html = alice_web.get(f"/memories/{item.pk}/edit/").content.decode()
    assert "(optional)" not in html
    assert 'Why <span class="optional">optional</span>' in html


def test_metadata_is_shown_as_json(alice_web, alice):
    item = services.memory_create(user=alice, content="Plays padel on Tuesdays")
    KnowledgeItem.objects.filter(pk=item.pk).update(
        metadata={"session_date": "2026-11-02", "imported": True, "extra": None}
    )
    html = alice_web.get(f"/memories/{item.pk}/").content.decode()
    assert "&quot;imported&quot;: true" in html and "&quot;extra&quot;: null" in html
    assert "True" not in html.split("Metadata", 1)[1].split("</pre>", 1)[0]


def test_the_footer_says_who_can_see_memory(alice_web):
    html = alice_web.get("/").content.decode()
    assert "nobody else can see it" not in html
    assert "no other user can see it" in html and "administrators can" in html


def test_the_admin_names_user_settings_and_deliveries_in_english(django_user_model):
    staff = django_user_model.objects.create_user("boss", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    html = admin.get("/admin/").content.decode()
    assert "User settingss" not in html and "User settings" in html
    assert "Deliverys" not in html and "Deliveries" in html


def test_the_admin_is_gaias_with_its_icon_and_names_tokens_and_people_in_english(
    django_user_model,
):
    staff = django_user_model.objects.create_user("boss", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    html = admin.get("/admin/").content.decode()
    assert "Gaia Memory admin" in html and "Django administration" not in html
    assert "Api tokens" not in html and "API tokens" in html
    assert "App persons" not in html and "App people" in html
    assert '<link rel="icon" href="data:image/svg+xml' in html  # no /favicon.ico 404
    login = Client().get("/admin/login/").content.decode()
    assert "Gaia Memory admin" in login and '<link rel="icon"' in login


def test_the_webhook_forms_events_label_heads_its_boxes(alice_web):
    html = alice_web.get("/settings/webhooks/").content.decode()
    group = html.split('<fieldset class="field-choices">', 1)[1].split("</fieldset>", 1)[0]
    assert group.lstrip().startswith("<legend>Events")  # the label above, not after, them
    assert group.count('type="checkbox"') >= 5 and 'class="choice"' in group
    assert "<span>Events</span>" not in html  # no longer a label wrapped round the boxes


def test_with_memory_off_the_list_says_so_and_search_matches_words(alice_web, alice):
    services.memory_create(user=alice, content="Plays padel on Tuesdays")
    services.memory_create(user=alice, content="Drinks oat milk")
    user_settings_update(user=alice, memory_enabled=False)
    response = alice_web.get("/memories/", {"q": "padel"})
    assert "Memory is off" in response.content.decode()
    assert [row["item"].content for row in response.context["rows"]] == ["Plays padel on Tuesdays"]
    user_settings_update(user=alice, memory_enabled=True)
    assert "Memory is off" not in alice_web.get("/memories/").content.decode()
