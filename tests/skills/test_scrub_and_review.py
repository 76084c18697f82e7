"""The scrubber on text shaped like what models and people write; staff review; decay
and validation; a user's erase takes their part of proposed skills back; skills are
isolated per agent type."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AgentType
from accounts.services import token_create
from conversations.models import Session
from conversations.services import session_get_or_create
from privacy.services import memory_erase_user
from skills.models import Skill, SkillContribution
from skills.scrub import Scrubber, capitalised, words
from skills.services import skill_propose, skill_review, skills_decay

pytestmark = pytest.mark.django_db
FIELDS = {"trigger": "When the user asks to archive old newsletters",
          "procedure": "Search by label, then archive in batches of fifty."}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        ("Email jane.doe+work@mail.example.co.uk then call +44 (0)20 7946 0958",
         ["jane", "7946", "0958", "example"], ["Email", "then call"]),
        ("Use the GMAIL_SEND_EMAIL tool; the API answers 550 when Müller's box is full",
         ["müller", "550"], ["GMAIL_SEND_EMAIL", "API"]),
        ("Links like https://intranet.corp/x?id=99 or www.foo.org/bar, ping @kate_w",
         ["intranet", "foo.org", "kate_w", "99"], ["Links like"]),
        ("my aws secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok",
         ["wjalrxutnfemi"], ["<secret>"]),
        ("Book it for Tuesday 3 March at 14:30 near Rua Augusta",
         ["14:30", "rua", "augusta"], ["Tuesday", "March"]),
        ("sarah said THE REPORT is late (in lisbon)", ["sarah", "lisbon"], ["REPORT"]),
        ("", [], []),
        ("\x00broken \ud800 text", [], []),
    ],
    ids=["email-phone", "tool-acronym-number", "urls-handle", "secret", "dates-places",
         "known-lowercase", "empty", "broken"],
)  # fmt: skip
def test_the_scrubber_takes_out_what_points_at_a_person(text, gone, kept):
    scrubber = Scrubber(personal={"sarah", "lisbon"}, keep=words(["GMAIL_SEND_EMAIL"]))
    out = scrubber.text(text)
    assert not [g for g in gone if g in out.lower()], out
    assert all(k in out for k in kept), out


def test_capitalised_words_of_a_users_turns_count_as_personal():
    assert capitalised(["Send it to Dmitri in Hamburg on Monday"]) == {"send", "dmitri", "hamburg"}


def _skill(kind: AgentType, user, session: Session, **extra) -> Skill:
    skill, _ = skill_propose(
        agent_type=kind,
        fields={**FIELDS, **extra},
        scrubbed=0,
        contributor=user,
        session=session,
    )
    return skill


def test_only_active_staff_review_and_review_drops_the_links_to_users(alice, django_user_model):
    kind = AgentType.objects.create(name="gmail_agent")
    skill = _skill(kind, alice, session_get_or_create(user=alice, session_id="s"))
    with pytest.raises(PermissionDenied):
        skill_review(skill_id=skill.pk, reviewer=alice, approve=True)
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    skill = skill_review(skill_id=skill.pk, reviewer=staff, approve=False)
    assert skill.status == "rejected" and not SkillContribution.objects.exists()


def test_a_non_staff_user_cannot_reach_the_skill_admin(alice):
    browser = Client()
    browser.force_login(alice)
    response = browser.get("/admin/skills/skill/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_an_unvalidated_skill_decays_once_per_ninety_idle_days(alice, django_user_model):
    kind = AgentType.objects.create(name="gmail_agent", auto_approve_skills=True)
    skill = _skill(kind, alice, session_get_or_create(user=alice, session_id="s"))
    now = timezone.now()
    Skill.objects.filter(pk=skill.pk).update(last_validated_at=now - timedelta(days=91))
    assert skills_decay(now=now) == 1
    assert skills_decay(now=now + timedelta(days=1)) == 0  # not again the next day
    assert skills_decay(now=now + timedelta(days=91)) == 1
    skill.refresh_from_db()
    assert skill.confidence == pytest.approx(0.5 * 0.9 * 0.9)


def test_a_users_erase_takes_their_part_of_proposed_skills_back(alice, bob):
    kind = AgentType.objects.create(name="gmail_agent")
    only_alice = _skill(kind, alice, session_get_or_create(user=alice, session_id="a"))
    shared = _skill(
        kind,
        alice,
        session_get_or_create(user=alice, session_id="a2"),
        trigger="When the user asks to label invoices",
    )
    _skill(kind, bob, session_get_or_create(user=bob, session_id="b"),
           trigger="When the user asks to label invoices")  # fmt: skip
    counts = memory_erase_user(user=alice)
    assert counts["skills_proposed"] == 1 and counts["skill_contributions"] == 2
    assert not Skill.objects.filter(pk=only_alice.pk).exists()
    assert [c.owner for c in SkillContribution.objects.filter(skill=shared)] == [bob]


@pytest.mark.cross_user("api-skills-search", "api-skill-validate")
def test_skills_are_isolated_per_agent_type(alice, bob):
    gmail = AgentType.objects.create(name="gmail_agent", auto_approve_skills=True)
    twitter = AgentType.objects.create(name="twitter_agent", auto_approve_skills=True)
    skill = _skill(gmail, alice, session_get_or_create(user=alice, session_id="a"))

    def api(user, agent_type):
        token, secret = token_create(user=user, name=f"{agent_type}-tok", agent_name=agent_type)
        token.agent.agent_type = agent_type and AgentType.objects.get(name=agent_type)
        token.agent.save()
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
        return client

    bob_gmail, bob_twitter = api(bob, gmail.name), api(bob, twitter.name)
    query = {"query": "archive old newsletters"}
    hits = bob_gmail.post("/api/v1/skills/search/", query, format="json").json()["results"]
    assert [h["skill"]["id"] for h in hits] == [skill.pk]  # shared across users of a type
    other = bob_twitter.post("/api/v1/skills/search/", query, format="json").json()
    assert other == {"agent_type": "twitter_agent", "results": []}
    assert bob_twitter.get("/api/v1/skills/search/", query).json()["results"] == []
    theirs = bob_twitter.post(f"/api/v1/skills/{skill.pk}/validate/")
    missing = bob_twitter.post("/api/v1/skills/999999/validate/")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == missing.json()
    validated = bob_gmail.post(f"/api/v1/skills/{skill.pk}/validate/").json()
    assert validated["times_validated"] == 1
    assert "contributions" not in validated and "owner" not in str(validated)
