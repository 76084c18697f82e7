"""General words in shared skills: a word the person's session happened to capitalise (a
sentence's first word, a label, a key of a tool's JSON, an identifier in camelCase) is no
name, and neither it nor a longer word holding it is cut; a name that is also a general
word ("Rose", "Maria", "Will") is scrubbed wherever the skill writes it as a name, when
the person's own data names someone by it."""

import pytest

from accounts.models import Agent, AgentType
from accounts.services import token_create
from conversations.services.recording import tool_call_record, turn_append
from memory.models import KnowledgeItem
from skills.models import Skill
from skills.personal import text_terms
from skills.scrub import Scrubber, Terms
from skills.tasks import learn_skills
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
TOOL = "STRIPE_REFUND"


def _learned(fake_llm, user, turn: str, result: str, skill: dict) -> Skill:
    """`skill` as the model wrote it from a session holding `turn` and a call of TOOL that
    answered `result`, learned and stored (scrubbed)."""
    kind = AgentType.objects.create(name="billing_agent")
    token, _ = token_create(user=user, name="laptop", agent_name="billing")
    Agent.objects.filter(pk=token.agent_id).update(agent_type=kind)
    agent = Agent.objects.get(pk=token.agent_id)
    said = turn_append(user=user, session_id="s", role="user", content=turn, agent=agent)
    tool_call_record(user=user, tool_name=TOOL, session_id="s", agent=agent,
                     args={"invoice": "in_1Q2w"}, result_summary=result)  # fmt: skip
    fake_llm.then(f.answer({"skills": [{**skill, "tools_used": [TOOL]}]}))
    assert learn_skills(said.session_id)["proposed"] == 1
    return Skill.objects.get()


def test_words_the_session_capitalised_stay_whole_in_the_skill(fake_llm, alice):
    turn = ("Refund the March invoice, please.\nCustomers get angry when the card is "
            "declined. Processing takes days!")  # fmt: skip
    result = '```json\n{"object": "refund", "PaymentMethod": "card", "Status": "Processing"}\n```'
    skill = {
        "trigger": "When a customer asks for a refund of an invoice",
        "procedure": "Read the PaymentMethod first, then refund the invoice. Customers get "
        "their money back; processing is slow, so say it will show as pending.",
        "gotchas": "Refunds get processed in batches.",
    }
    stored = _learned(fake_llm, alice, turn, result, skill)
    assert (stored.trigger, stored.procedure, stored.gotchas) == (
        skill["trigger"],
        skill["procedure"],
        skill["gotchas"],
    )
    assert stored.scrubbed == 0


def test_a_name_that_is_a_common_word_is_scrubbed_where_it_is_written_as_a_name(fake_llm, alice):
    alice.first_name = "Will"  # the person's own name
    alice.save()
    KnowledgeItem.objects.create(owner=alice, content="Maria is my landlady", entity="person:maria")
    turn = "Please send the lease to Rose before Friday."  # someone the session names
    skill = {
        "trigger": "When Rose or Maria asks Will for the lease",
        "procedure": "Will you check the lease first? It will show as signed. ROSE and "
        "Maria's notes sit in the rose garden file; roses are fine.",
    }
    stored = _learned(fake_llm, alice, turn, '{"refunded": true}', skill)
    assert stored.trigger == "When <name> or <name> asks <name> for the lease"
    assert stored.procedure == (
        "<name> you check the lease first? It will show as signed. <name> and <name>'s "
        "notes sit in the rose garden file; roses are fine."
    )


def test_a_general_word_counts_as_a_name_only_written_as_one_inside_a_sentence():
    terms = text_terms(
        "Refund it. Ask Rose.\nStatus: Processing. PROCESSING the PaymentMethod for "
        "Wunderlich and OTTOLINE"
    )
    assert {"rose", "wunderlich", "ottoline"} <= terms.weak
    assert not {"refund", "processing", "payment", "method"} & terms.weak


def test_a_common_name_of_the_terms_is_cut_whole_never_inside_a_word():
    tools = {"grant", "access", "grant_access"}
    scrubber = Scrubber(terms=Terms(strong={"rose", "grant"}), shared=set(), tools=tools)
    assert scrubber.text("Rose-Marie and R0se asked; GRANT_ACCESS for Grant") == (
        "<name>-Marie and <name> asked; GRANT_ACCESS for <name>"
    )
    text = "the roses, the prose and Rosemary; it arose; rose water; a RoseGold theme"
    assert scrubber.text(text) == (
        "the roses, the prose and <name>; it arose; rose water; a <name> theme"
    )
