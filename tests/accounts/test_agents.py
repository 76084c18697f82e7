from io import StringIO

import pytest
from django.core.management import call_command

from accounts.models import Agent, ApiToken
from accounts.services import token_create

pytestmark = pytest.mark.django_db


def test_token_create_makes_an_agent_named_after_the_token(django_user_model):
    user = django_user_model.objects.create_user("ann")
    token, _ = token_create(user=user, name="claude")
    assert token.agent.name == "claude"
    assert token.agent.default_context == "global"


def test_second_token_reuses_the_agent(django_user_model):
    user = django_user_model.objects.create_user("ann")
    first, _ = token_create(user=user, name="laptop", agent_name="claude")
    second, _ = token_create(user=user, name="phone", agent_name="claude")
    assert first.agent_id == second.agent_id
    assert Agent.objects.filter(owner=user).count() == 1


def test_agents_are_per_user(django_user_model):
    ann = django_user_model.objects.create_user("ann")
    bob = django_user_model.objects.create_user("bob")
    a, _ = token_create(user=ann, name="claude")
    b, _ = token_create(user=bob, name="claude")
    assert a.agent_id != b.agent_id


def test_command_agent_option(django_user_model):
    user = django_user_model.objects.create_user("ann")
    call_command(
        "create_api_token",
        "ann",
        "--name",
        "ci",
        "--agent",
        "builder",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    assert ApiToken.objects.get(owner=user).agent.name == "builder"
