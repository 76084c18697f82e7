"""Staff make apps: by command (the secret alone on the last line), in the admin (the
secret shown once, tokens revoked, people erased) and by the staff API."""

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from accounts.models import App, AppPerson, AppToken
from accounts.people import app_create, app_token_authenticate, app_token_create, person_create
from accounts.services import token_create
from memory.models import KnowledgeItem
from memory.services import memory_create


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("create_app", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def shown_secret(page: str) -> str:
    return re.search(r'id="new-secret"[^>]*value="([^"]+)"', page).group(1)


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(
        "root", "root@example.org", "root-pass-123", is_staff=True, is_superuser=True
    )


def test_the_command_creates_an_app_and_prints_a_working_secret_alone_on_the_last_line(db):
    out, err = run("support-bot", "--token-name", "prod", "--description", "Helpdesk")
    secret = out.strip().splitlines()[-1]
    assert secret.startswith("gaia_app_") and " " not in secret
    token = app_token_authenticate(secret)
    assert token is not None and token.name == "prod"
    assert token.app.name == "support-bot" and token.app.description == "Helpdesk"
    assert "shown once" in err
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert client.get("/api/v1/app/").json()["name"] == "support-bot"


def test_the_command_refuses_an_existing_app_unless_told_to_add_a_token(db):
    first, _ = run("support-bot")
    with pytest.raises(CommandError, match="--token"):
        run("support-bot")
    assert AppToken.objects.count() == 1
    with pytest.raises(CommandError, match="usable token named 'default'"):
        run("support-bot", "--token")
    second, _ = run("support-bot", "--token", "--token-name", "2026-rotation")
    assert app_token_authenticate(second.strip()).name == "2026-rotation"
    assert app_token_authenticate(first.strip()) is not None  # the first stays until revoked
    assert App.objects.count() == 1


def test_the_command_adds_no_token_to_a_missing_app_and_refuses_bad_names(db):
    with pytest.raises(CommandError, match="No app 'typo-bot'"):
        run("typo-bot", "--token")
    with pytest.raises(CommandError, match="Letters, digits"):
        run("support bot!")
    assert not App.objects.exists()


@pytest.mark.cross_user("api-apps")
def test_only_staff_list_and_create_apps_through_the_api(staff, alice_api, db):
    _, staff_secret = token_create(user=staff, name="ops")
    staff_api = APIClient()
    staff_api.credentials(HTTP_AUTHORIZATION=f"Bearer {staff_secret}")
    made = staff_api.post("/api/v1/apps/", {"name": "tutor", "token_name": "web"}, format="json")
    assert made.status_code == 201, made.content
    secret = made.json()["token"]["secret"]
    assert app_token_authenticate(secret).app.name == "tutor"
    assert App.objects.get(name="tutor").created_by == staff
    listed = staff_api.get("/api/v1/apps/").json()["results"]
    assert [(a["name"], a["people"]) for a in listed] == [("tutor", 0)]
    assert "secret" not in str(listed)
    assert staff_api.post("/api/v1/apps/", {"name": "tutor"}, format="json").status_code == 400

    app_api = APIClient()
    app_api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    person_create(app=App.objects.get(name="tutor"), external_id="s1")
    acting = "/api/v1/apps/?user_id=s1"
    for client, url in (
        (alice_api, "/api/v1/apps/"),
        (app_api, "/api/v1/apps/"),
        (app_api, acting),
    ):
        assert client.get(url).status_code == 403
        assert client.post(url, {"name": "sneaky"}, format="json").status_code == 403
    assert not App.objects.filter(name="sneaky").exists()


def test_staff_without_the_admins_permission_for_apps_may_not_list_or_create_them(
    django_user_model,
):
    plain = django_user_model.objects.create_user("ops", "ops@example.org", is_staff=True)
    _, secret = token_create(user=plain, name="ops")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert api.get("/api/v1/apps/").status_code == 403
    refused = api.post("/api/v1/apps/", {"name": "sneaky"}, format="json")
    assert refused.status_code == 403 and "secret" not in refused.content.decode()
    assert not App.objects.exists()
    plain.user_permissions.add(Permission.objects.get(codename="add_app"))
    plain = django_user_model.objects.get(pk=plain.pk)  # permissions are cached per instance
    assert api.post("/api/v1/apps/", {"name": "allowed"}, format="json").status_code == 201
    assert api.get("/api/v1/apps/").status_code == 403  # viewing is its own permission
    plain.user_permissions.add(Permission.objects.get(codename="view_app"))
    assert api.get("/api/v1/apps/").json()["results"][0]["name"] == "allowed"


def test_a_staff_session_may_create_an_app(staff, client):
    client.force_login(staff)
    made = client.post("/api/v1/apps/", {"name": "from-session"}, content_type="application/json")
    assert made.status_code == 201, made.content


def test_the_admin_creates_an_app_and_shows_its_secret_once_on_the_answer(staff, client):
    client.force_login(staff)
    answer = client.post("/admin/accounts/app/add/", {"name": "crm-bot", "description": "CRM"})
    assert answer.status_code == 200
    assert "no-cache" in answer["Cache-Control"] or "no-store" in answer["Cache-Control"]
    secret = shown_secret(answer.content.decode())
    token = app_token_authenticate(secret)
    assert token is not None and token.app.name == "crm-bot"
    change_page = client.get(f"/admin/accounts/app/{token.app_id}/change/")
    assert change_page.status_code == 200 and "crm-bot" in change_page.content.decode()
    assert secret not in change_page.content.decode()

    more = client.post("/admin/accounts/apptoken/add/", {"app": token.app_id, "name": "backup"})
    second = shown_secret(more.content.decode())
    assert app_token_authenticate(second).name == "backup"


def test_the_admin_revokes_tokens_disables_apps_and_erases_people(staff, client):
    app = app_create(name="crm-bot")
    token, secret = app_token_create(app=app, name="prod")
    person, _ = person_create(app=app, external_id="lead-77")
    memory_create(user=person.user, content="Lead 77 wants a demo on Tuesday")
    client.force_login(staff)
    assert client.get("/admin/accounts/appperson/").status_code == 200

    client.post("/admin/accounts/app/", {"action": "disable", "_selected_action": [app.pk]})
    assert app_token_authenticate(secret) is None
    client.post("/admin/accounts/app/", {"action": "enable", "_selected_action": [app.pk]})
    assert app_token_authenticate(secret) is not None
    client.post("/admin/accounts/apptoken/", {"action": "revoke", "_selected_action": [token.pk]})
    assert app_token_authenticate(secret) is None

    client.post("/admin/accounts/appperson/", {"action": "erase", "_selected_action": [person.pk]})
    assert not AppPerson.objects.exists()
    assert not get_user_model().objects.filter(pk=person.user_id).exists()
    assert not KnowledgeItem.objects.exists()
