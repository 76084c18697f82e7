"""create_api_token run twice with one name: it stops and says so, or replaces the token
(it had silently made two tokens of one name)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import ApiToken
from accounts.services import token_authenticate, token_revoke

pytestmark = pytest.mark.django_db


def _create(*args: str) -> str:
    out = StringIO()
    call_command("create_api_token", *args, stdout=out, stderr=StringIO())
    return out.getvalue().strip().splitlines()[-1]


def test_a_second_token_of_the_same_name_is_refused_with_what_to_do(alice):
    first = _create("alice", "--name", "laptop")
    with pytest.raises(CommandError, match=r"already has a token named 'laptop'.*--replace"):
        _create("alice", "--name", "laptop")
    assert ApiToken.objects.filter(owner=alice, name="laptop").count() == 1
    assert token_authenticate(first) is not None


def test_replace_revokes_the_old_token_and_makes_a_new_one(alice):
    first = _create("alice")
    second = _create("alice", "--replace")
    assert token_authenticate(first) is None
    assert token_authenticate(second).name == "default"


def test_another_name_or_a_revoked_one_is_no_conflict(alice):
    first = _create("alice", "--name", "laptop")
    _create("alice", "--name", "phone")
    token_revoke(user=alice, token_id=ApiToken.objects.get(name="laptop").pk)
    again = _create("alice", "--name", "laptop")
    assert token_authenticate(again) is not None and token_authenticate(first) is None


def test_a_new_user_is_told_how_to_set_a_password(django_user_model):
    err, secret = StringIO(), StringIO()
    call_command("create_api_token", "dora", "--create-user", stdout=secret, stderr=err)
    assert "manage.py changepassword dora" in err.getvalue()
    assert django_user_model.objects.filter(username="dora").exists()
    assert secret.getvalue().strip().startswith("gaia_")  # the secret alone on stdout
