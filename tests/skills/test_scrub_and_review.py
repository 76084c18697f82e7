"""The scrubber on text shaped like what models and people write; staff review; decay
and validation; skills are isolated per agent type."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.models import Session
from conversations.services.recording import session_get_or_create
from skills.models import Skill, SkillContribution
from skills.personal import text_terms
from skills.scrub import Scrubber, Terms, words
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
         ["müller", "muller", "550"], ["GMAIL_SEND_EMAIL", "API"]),
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
    scrubber = Scrubber(
        terms=Terms(strong={"sarah", "lisbon"}), shared=set(), tools=words(["GMAIL_SEND_EMAIL"])
    )
    out = scrubber.text(text)
    assert not [g for g in gone if g in out.lower()], out
    assert all(k in out for k in kept), out


def test_what_looks_like_a_name_in_a_session_is_a_personal_term_wherever_it_stands():
    terms = text_terms("Send it to Dmitri in Hamburg on Monday. Wunderlich asked: OTTOLINE")
    assert {"dmitri", "hamburg", "wunderlich", "ottoline"} <= terms.weak
    assert "monday" in terms.weak and "to" not in terms.weak  # the allow-list applies later


def _skill(kind: AgentType, user, session: Session, **extra) -> Skill:
    agent, _ = Agent.objects.get_or_create(owner=user, name=f"{kind.name}-agent", agent_type=kind)
    skill, _ = skill_propose(agent=agent, session=session, fields={**FIELDS, **extra}, scrubbed=0)
    return skill


def test_only_active_staff_review_and_review_keeps_the_links_to_people(alice, django_user_model):
    kind = AgentType.objects.create(name="gmail_agent")
    skill = _skill(kind, alice, session_get_or_create(user=alice, session_id="s"))
    with pytest.raises(PermissionDenied):
        skill_review(skill_id=skill.pk, reviewer=alice, approve=True)
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    skill = skill_review(skill_id=skill.pk, reviewer=staff, approve=False)
    assert skill.status == "rejected"
    assert [(c.owner, c.kind) for c in SkillContribution.objects.all()] == [(alice, "learned")]


def test_a_non_staff_user_cannot_reach_the_skill_admin(alice):
    browser = Client()
    browser.force_login(alice)
    response = browser.get("/admin/skills/skill/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_an_unvalidated_skill_decays_once_per_ninety_idle_days(alice, django_user_model):
    kind = AgentType.objects.create(name="gmail_agent")
    skill = _skill(kind, alice, session_get_or_create(user=alice, session_id="s"))
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    skill_review(skill_id=skill.pk, reviewer=staff, approve=True)
    now = timezone.now()
    Skill.objects.filter(pk=skill.pk).update(last_validated_at=now - timedelta(days=91))
    assert skills_decay(now=now) == 1
    assert skills_decay(now=now + timedelta(days=1)) == 0  # not again the next day
    assert skills_decay(now=now + timedelta(days=91)) == 1
    skill.refresh_from_db()
    assert skill.confidence == pytest.approx(0.5 * 0.9 * 0.9)


@pytest.mark.cross_user("api-skills-search", "api-skill-validate")
def test_skills_are_isolated_per_agent_type(alice, bob, django_user_model):
    gmail = AgentType.objects.create(name="gmail_agent")
    twitter = AgentType.objects.create(name="twitter_agent")
    skill = _skill(gmail, alice, session_get_or_create(user=alice, session_id="a"))
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    skill_review(skill_id=skill.pk, reviewer=staff, approve=True)

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
