"""Login (throttled), logout, sign-up only when allowed, password change, login required."""

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

PAGES = [
    ("web-dashboard", []),
    ("web-memory-list", []),
    ("web-memory-add", []),
    ("web-memory-detail", [1]),
    ("web-session-list", []),
    ("web-turn-search", []),
    ("web-tool-calls", []),
    ("web-token-list", []),
    ("web-settings", []),
    ("web-password-change", []),
]


@pytest.mark.parametrize(("name", "args"), PAGES)
def test_it_sends_anonymous_visitors_to_the_login_page(client, name, args):
    url = reverse(name, args=args)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={url}"


def test_it_shows_the_login_page(client):
    response = client.get("/login/")
    assert response.status_code == 200
    assert b"Log in" in response.content
    assert b"Ask your administrator" in response.content  # sign-up is off by default


def test_it_logs_in_and_lands_on_the_dashboard(client, alice):
    response = client.post("/login/", {"username": "alice", "password": "alice-pass-123"})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_it_follows_next_after_login(client, alice):
    response = client.post(
        "/login/?next=/memories/",
        {"username": "alice", "password": "alice-pass-123", "next": "/memories/"},
    )
    assert response["Location"] == "/memories/"


def test_it_refuses_a_wrong_password_with_a_clear_message(client, alice):
    response = client.post("/login/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert b"Please enter a correct username and password" in response.content


@pytest.mark.redis  # the login counters live in the cache
def test_it_throttles_login_attempts_per_ip_and_username(client, alice, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"token": "6000/min", "login": "3/min"},
    }
    for _ in range(3):
        assert client.post("/login/", {"username": "alice", "password": "x"}).status_code == 200
    blocked = client.post("/login/", {"username": "alice", "password": "alice-pass-123"})
    assert blocked.status_code == 429
    assert b"Too many attempts" in blocked.content
    assert "_auth_user_id" not in client.session  # even the right password is refused now
    # Another account from the same address is not locked out by alice's attempts.
    other = client.post("/login/", {"username": "bob", "password": "x"})
    assert other.status_code == 200


@pytest.mark.redis
def test_a_successful_login_resets_the_throttle(client, alice, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"token": "6000/min", "login": "3/min"},
    }
    for _ in range(2):
        client.post("/login/", {"username": "alice", "password": "x"})
    assert (
        client.post("/login/", {"username": "alice", "password": "alice-pass-123"}).status_code
        == 302
    )
    client.post("/logout/")
    for _ in range(2):
        assert client.post("/login/", {"username": "alice", "password": "x"}).status_code == 200


def test_logout_needs_a_post_and_ends_the_session(alice_web):
    assert alice_web.get("/logout/").status_code == 405
    response = alice_web.post("/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/login/"
    assert alice_web.get("/").status_code == 302


def test_logout_is_protected_by_csrf(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert browser.post("/logout/").status_code == 403


def test_signup_is_not_there_unless_the_operator_allows_it(client, settings):
    settings.GAIA_ALLOW_SIGNUP = False
    assert client.get("/signup/").status_code == 404
    response = client.post(
        "/signup/", {"username": "eve", "password1": "Str0ng-pass-9", "password2": "Str0ng-pass-9"}
    )
    assert response.status_code == 404


def test_signup_creates_an_account_and_logs_it_in(client, settings, django_user_model):
    settings.GAIA_ALLOW_SIGNUP = True
    assert b"Create an account" in client.get("/login/").content
    response = client.post(
        "/signup/", {"username": "eve", "password1": "Str0ng-pass-9", "password2": "Str0ng-pass-9"}
    )
    assert response.status_code == 302
    eve = django_user_model.objects.get(username="eve")
    assert not eve.is_staff
    assert client.get("/").context["user"] == eve


def test_signup_explains_what_is_wrong(client, settings, django_user_model):
    settings.GAIA_ALLOW_SIGNUP = True
    response = client.post(
        "/signup/", {"username": "eve", "password1": "Str0ng-pass-9", "password2": "different-9"}
    )
    assert response.status_code == 200
    assert b"password fields didn" in response.content
    assert not django_user_model.objects.filter(username="eve").exists()


def test_password_change_keeps_the_session_and_takes_the_new_password(alice_web, alice):
    assert alice_web.get("/password/").status_code == 200
    response = alice_web.post(
        "/password/",
        {
            "old_password": "alice-pass-123",
            "new_password1": "N3w-secret-pass",
            "new_password2": "N3w-secret-pass",
        },
    )
    assert response.status_code == 302
    assert alice_web.get("/").status_code == 200
    alice.refresh_from_db()
    assert alice.check_password("N3w-secret-pass")


def test_password_change_refuses_a_wrong_old_password(alice_web, alice):
    response = alice_web.post(
        "/password/",
        {"old_password": "wrong", "new_password1": "N3w-pass-1", "new_password2": "N3w-pass-1"},
    )
    assert response.status_code == 200
    assert b"old password was entered incorrectly" in response.content
    alice.refresh_from_db()
    assert alice.check_password("alice-pass-123")


@pytest.mark.redis
def test_signup_is_rate_limited_per_address(client, settings, django_user_model):
    settings.GAIA_ALLOW_SIGNUP = True
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"token": "6000/min", "login": "2/min"},
    }
    for name in ("eve1", "eve2"):
        other = Client()
        other.post(
            "/signup/",
            {"username": name, "password1": "Str0ng-pass-9", "password2": "Str0ng-pass-9"},
        )
    response = Client().post(
        "/signup/", {"username": "eve3", "password1": "Str0ng-pass-9", "password2": "Str0ng-pass-9"}
    )
    assert response.status_code == 429
    assert not django_user_model.objects.filter(username="eve3").exists()
