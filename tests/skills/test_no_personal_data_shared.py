"""No person's data reaches a skill another user can read (issue #31).

Hypothesis draws a person (their account, a third party they write to, an address, a
phone number, a company), puts those details in a session the way people and tools
write them, and has the model write them into a skill in the forms of
tests/skills/personal_data.py. Whatever it drew, none of those details can be read in
any stored skill, nor in what another user's agent of the type reads: skill search,
`recall_skills` and its system prompt. A skill whose trigger held a detail is kept, the
detail scrubbed.
"""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.models import Session, Turn
from conversations.services.recording import tool_call_record
from memory.models import KnowledgeItem
from skills.models import Skill
from skills.personal import personal_terms, scrubber_for
from skills.services import skill_review
from skills.tasks import learn_skills
from tests.learning import fake_llm as f
from tests.skills.personal_data import Person, found_in, leaked, people, where_said

pytestmark = pytest.mark.django_db
TYPE = "crm_agent"
TOOLS = ["CRM_SEARCH_CONTACTS", "GMAIL_SEND_EMAIL"]
TRIGGERS = ["When the user asks to send a report to a contact",
            "When the user wants an invoice forwarded",
            "When a message must reach someone found in the CRM"]  # fmt: skip
FILLER = ["Search the contacts first.", "then draft a short message", "Check the address.",
          "the user wanted it sent at once", "Use CRM_SEARCH_CONTACTS before GMAIL_SEND_EMAIL.",
          "Confirm with the user", "it failed once:"]  # fmt: skip
TEXT_FIELDS = ["trigger", "procedure", "what_worked", "what_didnt_work", "gotchas",
               "optimal_approach", "success_criteria"]  # fmt: skip
PROPERTY = settings(
    max_examples=150,
    deadline=None,
    database=None,  # nothing written into the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@st.composite
def sessions(draw) -> tuple[Person, dict, dict]:
    """A person, where their session holds their details, and the skill a model wrote."""
    person = draw(people())
    said = where_said(draw, person)

    def field(min_size: int = 1) -> str:
        pieces = draw(st.lists(st.one_of(st.sampled_from(FILLER), leaked(person)),
                               min_size=min_size, max_size=5))  # fmt: skip
        glue = draw(st.sampled_from([" ", ". ", ", ", "\n", ": ", "; "]))
        return glue.join(pieces)

    named_trigger = draw(st.integers(0, 4)) == 0
    skill = {
        "trigger": f"{draw(st.sampled_from(TRIGGERS))} {draw(leaked(person))}"
        if named_trigger
        else draw(st.sampled_from(TRIGGERS)),
        **{name: field() for name in TEXT_FIELDS[1:]},
        "tools_used": [*TOOLS, said["tool"], draw(leaked(person))],
        "unnecessary_tools": [draw(leaked(person))],
        "confidence": 0.9,
    }
    return person, said, skill


def _stored(person: Person, said: dict, agent_type: AgentType):
    """The person's account, agent and session, holding their details as `said`."""
    user = get_user_model().objects.create_user(
        person.username, person.email, first_name=person.first, last_name=person.last
    )
    agent = Agent.objects.create(owner=user, name="crm", agent_type=agent_type)
    session = Session.objects.create(owner=user, session_id="s")
    for role, content in said["turns"]:  # as turn_append stores them, without the embedding
        Turn.objects.create(owner=user, session=session, role=role, content=content, agent=agent)
    for tool in [*TOOLS, said["tool"]]:
        failed = {"error": said["error"], "success": not said["error"]}
        tool_call_record(
            user=user, tool_name=tool, session_id="s", agent=agent, args=said["args"], **failed
        )
    if said["entity"]:
        KnowledgeItem.objects.create(owner=user, content="A contact", entity=said["entity"])
    return user, session


def _readable_texts(skill_fields: dict) -> list[str]:
    return [str(skill_fields.get(name, "")) for name in TEXT_FIELDS] + [
        str(tool)
        for name in ("tools_used", "unnecessary_tools")
        for tool in skill_fields.get(name, [])
    ]


def _assert_unreadable(person: Person, texts: list[str]) -> None:
    for text in texts:
        for name in person.names():
            assert not found_in(name, text), (name, text)
        assert not found_in(person.phone, text, digits=True), (person.phone, text)


@PROPERTY
@given(drawn=sessions())
def test_the_scrubber_leaves_no_detail_of_the_session_readable(drawn):
    person, said, skill = drawn
    with transaction.atomic():
        kind, _ = AgentType.objects.get_or_create(name=TYPE)
        user, session = _stored(person, said, kind)
        terms = personal_terms(user, [session])
        tools = [*TOOLS, said["tool"]]
        scrubber = scrubber_for(user=user, terms=terms, agent_type=kind, tool_names=tools)
        texts = [scrubber.text(skill[name]) for name in TEXT_FIELDS]
        texts += scrubber.items(skill["tools_used"]) + scrubber.items(skill["unnecessary_tools"])
        transaction.set_rollback(True)
    _assert_unreadable(person, texts)
    assert "CRM_SEARCH_CONTACTS" in texts and "GMAIL_SEND_EMAIL" in texts  # tools stay
    assert "<name>_crm_lookup" in texts  # the person's surname left the tool's name


@pytest.fixture
def reader(charlie):
    """Another user's agent of the type: what it can read of the type's skills."""
    kind = AgentType.objects.create(name=TYPE)
    token, secret = token_create(user=charlie, name="crm-laptop", agent_name="crm")
    Agent.objects.filter(pk=token.agent_id).update(agent_type=kind)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")

    def read(query: str) -> list[str]:
        found = api.post("/api/v1/skills/search/", {"query": query, "min_relevance": 0},
                         format="json").json()["results"]  # fmt: skip
        ask = {"name": "recall_skills", "arguments": {"query": query}}
        recalled = api.post("/api/v1/tools/call/", ask, format="json").json()["result"]["results"]
        prompt = api.get("/api/v1/prompt/system/").json()["prompt"]
        quoted = re.findall(r'"(?:[^"\\]|\\.)*"', prompt.split("## Learned procedures", 1)[-1])
        assert found and recalled and quoted, (found, recalled, prompt)
        return [
            *(t for hit in found for t in _readable_texts(hit["skill"])),
            *(t for hit in recalled for t in _readable_texts(hit)),
            *(json.loads(q) for q in quoted),
        ]

    return kind, read


@settings(PROPERTY, max_examples=40)
@given(drawn=sessions())
def test_no_detail_reaches_another_users_agent(fake_llm, reader, django_user_model, drawn):
    person, said, skill = drawn
    kind, read = reader
    with transaction.atomic():
        staff, _ = django_user_model.objects.get_or_create(username="staff", is_staff=True)
        _, session = _stored(person, said, kind)
        fake_llm.then(f.answer({"skills": [skill]}))
        result = learn_skills(session.pk)
        stored = list(Skill.objects.all())
        for row in stored:
            skill_review(skill_id=row.pk, reviewer=staff, approve=True)
        texts = [t for row in stored for t in _readable_texts(row.__dict__)]
        if stored:
            texts += read(skill["trigger"])
        transaction.set_rollback(True)
    _assert_unreadable(person, texts)
    # A trigger that named them is kept, scrubbed: the lesson stays, the person goes.
    assert result == {"status": "done", "agent_type": TYPE, "proposed": 1}
