"""The first five minutes: the admin account `make run` makes, and a token for it."""

from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.first_admin import first_admin_login
from core.management.commands.serve import Command as Serve

pytestmark = pytest.mark.django_db


def _run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_admin_gets_the_password_of_gaia_admin_password(monkeypatch):
    monkeypatch.setenv("GAIA_ADMIN_PASSWORD", "a-long-chosen-passphrase")
    out, _ = _run("ensure_admin")
    assert "Created admin account 'admin'" in out and "passphrase" not in out
    assert authenticate(username="admin", password="a-long-chosen-passphrase") is not None


def test_a_generated_password_is_printed_with_how_to_change_it(monkeypatch, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    monkeypatch.delenv("GAIA_ADMIN_PASSWORD", raising=False)
    out, _ = _run("ensure_admin")
    password = out.split("Generated password (serve shows it once more, under its banner): ")
    password = password[1].split()[0]
    assert authenticate(username="admin", password=password) is not None
    assert "manage.py changepassword admin" in out and "GAIA_ADMIN_PASSWORD" in out
    again, _ = _run("ensure_admin")
    assert password not in again
    # Nothing after a colon that could be taken for the password itself.
    assert "Admin account 'admin'. To set a new password, run: " in again
    assert again.rstrip().endswith("manage.py changepassword admin")


def test_serve_has_the_generated_password_to_show_until_it_is_changed(
    monkeypatch, settings, tmp_path
):
    settings.DATA_DIR = tmp_path
    monkeypatch.delenv("GAIA_ADMIN_PASSWORD", raising=False)
    out, _ = _run("ensure_admin")
    password = out.split("banner): ", 1)[1].split()[0]
    assert first_admin_login() == ("admin", password)
    assert oct((tmp_path / "first_admin_password").stat().st_mode & 0o777) == "0o600"

    admin = get_user_model().objects.get(username="admin")
    admin.set_password("a-new-long-passphrase")
    admin.save()

    assert first_admin_login() is None
    assert not (tmp_path / "first_admin_password").exists()


def test_a_chosen_password_is_never_kept(monkeypatch, settings, tmp_path):
    settings.DATA_DIR = tmp_path
    monkeypatch.setenv("GAIA_ADMIN_PASSWORD", "a-long-chosen-passphrase")
    _run("ensure_admin")
    assert first_admin_login() is None and list(tmp_path.iterdir()) == []


def test_a_later_start_changes_no_password_and_says_so(monkeypatch):
    monkeypatch.setenv("GAIA_ADMIN_PASSWORD", "the-first-passphrase")
    _run("ensure_admin")
    monkeypatch.setenv("GAIA_ADMIN_PASSWORD", "a-different-passphrase")
    out, _ = _run("ensure_admin")
    assert "only read when the admin account is created" in out
    assert authenticate(username="admin", password="the-first-passphrase") is not None
    assert get_user_model().objects.count() == 1


def test_a_token_for_the_admin_works_as_the_readme_shows(monkeypatch):
    monkeypatch.setenv("GAIA_ADMIN_PASSWORD", "a-long-chosen-passphrase")
    _run("ensure_admin")
    out, err = _run("create_api_token", "admin", "--name", "my-agent")
    secret = out.strip().splitlines()[-1]
    assert secret.startswith("gaia_") and "my-agent" in err
    agent = APIClient(HTTP_AUTHORIZATION=f"Bearer {secret}")
    stored = agent.post("/api/v1/memories/", {"content": "Prefers tea"}, format="json")
    assert stored.status_code == 201
    found = agent.post("/api/v1/memories/search/", {"query": "tea"}, format="json").json()
    assert [hit["id"] for hit in found["results"]] == [stored.json()["id"]]
    assert found["results"][0]["content"] == "Prefers tea"


def test_serve_prints_the_generated_password_once_then_where_it_is_kept(
    monkeypatch, settings, tmp_path
):
    settings.DATA_DIR = tmp_path
    monkeypatch.delenv("GAIA_ADMIN_PASSWORD", raising=False)
    out, _ = _run("ensure_admin")
    password = out.split("banner): ", 1)[1].split()[0]
    banners = []
    for _ in range(3):
        serve = Serve(stdout=StringIO())
        serve._announce("127.0.0.1", "8123")
        banners.append(serve.stdout._out.getvalue())
    assert f"Admin login: admin / {password}" in banners[0]
    for later in banners[1:]:
        assert password not in later
        assert str(tmp_path / "first_admin_password") in later and "/password/" in later
    assert first_admin_login() == ("admin", password)  # still kept, still opens it
