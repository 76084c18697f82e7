"""A person's account erase reaches what they contributed to shared skills, approved or
not (issue #31): a skill taught only by them goes; one others taught too is scrubbed
again with everything of theirs and loses their count; their validations go."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.services.recording import session_get_or_create
from memory import services
from privacy.services import memory_erase_user
from skills.models import Skill, SkillContribution
from skills.services import skill_propose, skill_review

pytestmark = pytest.mark.django_db
FIELDS = {"trigger": "When the user asks to archive old newsletters",
          "procedure": "Search by label, then archive in batches.",
          "gotchas": "Newsletters from zarvex come in threads."}  # fmt: skip


@pytest.fixture
def kind() -> AgentType:
    return AgentType.objects.create(name="gmail_agent")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", is_staff=True)


def _teach(user, kind: AgentType, session_id: str = "s", **extra) -> tuple[Skill, str]:
    agent, _ = Agent.objects.get_or_create(owner=user, name="mail", agent_type=kind)
    session = session_get_or_create(user=user, session_id=session_id)
    return skill_propose(agent=agent, session=session, fields={**FIELDS, **extra}, scrubbed=0)


def _reader(user, kind: AgentType) -> APIClient:
    token, secret = token_create(user=user, name="reader", agent_name="reader")
    Agent.objects.filter(pk=token.agent_id).update(agent_type=kind)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return api


def _found(api: APIClient) -> list[int]:
    hits = api.post("/api/v1/skills/search/", {"query": "archive old newsletters"}, format="json")
    return [h["skill"]["id"] for h in hits.json()["results"]]


def test_an_account_erase_removes_the_skills_only_that_person_taught(alice, charlie, kind, staff):
    skill, _ = _teach(alice, kind)
    skill_review(skill_id=skill.pk, reviewer=staff, approve=True)
    LogEntry.objects.create(user=staff, content_type=ContentType.objects.get_for_model(Skill),
                            object_id=str(skill.pk), object_repr=skill.trigger,
                            action_flag=CHANGE)  # fmt: skip
    reader = _reader(charlie, kind)
    assert _found(reader) == [skill.pk]
    assert memory_erase_user(user=alice, dry_run=True)["skill_contributions"] == 1

    counts = memory_erase_user(user=alice)

    assert (counts["skills"], counts["skill_contributions"]) == (1, 1)
    assert not Skill.objects.exists() and not SkillContribution.objects.exists()
    assert _found(reader) == []
    assert "Learned procedures" not in reader.get("/api/v1/prompt/system/").json()["prompt"]
    assert not LogEntry.objects.filter(object_id=str(skill.pk)).exists()


def test_a_skill_others_taught_too_is_scrubbed_again_and_loses_the_persons_part(
    alice, bob, charlie, kind, staff
):
    skill, _ = _teach(alice, kind)
    assert _teach(bob, kind)[1] == "seconded"
    skill_review(skill_id=skill.pk, reviewer=staff, approve=True)
    reader = _reader(charlie, kind)
    reader.post(f"/api/v1/skills/{skill.pk}/validate/")
    # Learned later: alice's memory names the company the skill's text mentions.
    services.memory_create(user=alice, content="Works at Zarvex", entity="company:zarvex")

    counts = memory_erase_user(user=alice)

    skill.refresh_from_db()
    assert (counts["skills"], counts["skills_rescrubbed"]) == (0, 1)
    assert skill.gotchas == "Newsletters from <name> come in threads."
    assert skill.trigger == FIELDS["trigger"] and skill.status == "approved"
    assert skill.sessions_learned_from == 1  # bob's
    assert sorted(c.owner.username for c in skill.contributions.all()) == ["bob", "charlie"]
    assert _found(reader) == [skill.pk]

    memory_erase_user(user=charlie)  # a validation goes with its person
    skill.refresh_from_db()
    assert skill.times_validated == 0 and _found(reader) == [skill.pk]


def test_a_skill_whose_trigger_named_the_person_goes_even_when_others_taught_it(
    alice, bob, kind, staff
):
    trigger = {"trigger": "When the user asks to archive zarvex newsletters"}
    skill, _ = _teach(alice, kind, **trigger)
    assert _teach(bob, kind, **trigger)[1] == "seconded"
    skill_review(skill_id=skill.pk, reviewer=staff, approve=True)
    services.memory_create(user=alice, content="Works at Zarvex", entity="company:zarvex")

    counts = memory_erase_user(user=alice)

    assert counts["skills"] == 1 and not Skill.objects.exists()


def test_deleting_an_account_outright_takes_its_skills_too(alice, kind, staff):
    skill, _ = _teach(alice, kind)
    skill_review(skill_id=skill.pk, reviewer=staff, approve=True)
    alice.delete()
    assert not Skill.objects.exists()
