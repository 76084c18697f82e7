"""Skill answers as local models really write them: fenced, after a think block, in prose,
a bare list, one object, keys in other cases and words. Each is read into the same skill."""

import json

import pytest

from accounts.models import AgentType
from accounts.services import token_create
from conversations.services.recording import tool_call_record, turn_append
from skills.models import Skill
from skills.tasks import learn_skills
from tests.learning import fake_llm as f

pytestmark = pytest.mark.django_db
SKILL = {
    "trigger": "When the user asks to archive old newsletters",
    "procedure": "Search by label, then archive in batches.",
    "tools_used": ["GMAIL_SEARCH", "GMAIL_ARCHIVE"],
}
SHAPES = {
    "plain": json.dumps({"skills": [SKILL]}),
    "fenced": f"```json\n{json.dumps({'skills': [SKILL]}, indent=2)}\n```",
    "think": f"<think>\nOne procedure here.\n</think>\n\n{json.dumps({'skills': [SKILL]})}",
    "prose": f"Here is what I learned:\n\n{json.dumps({'skills': [SKILL]})}\n\nHope it helps!",
    "bare-list": json.dumps([SKILL]),
    "one-object": json.dumps(SKILL),
    "other-keys": json.dumps({"Procedures": [{"When": SKILL["trigger"],
                                              "Steps": SKILL["procedure"],
                                              "Tools": "GMAIL_SEARCH, GMAIL_ARCHIVE"}]}),
}  # fmt: skip


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
def test_every_shape_gives_the_same_proposed_skill(fake_llm, queued, alice, text):
    token, _ = token_create(user=alice, name="laptop", agent_name="mail")
    token.agent.agent_type = AgentType.objects.create(name="gmail_agent")
    token.agent.save()
    turn = turn_append(user=alice, session_id="s", role="user", content="tidy my inbox please",
                       agent=token.agent)  # fmt: skip
    tool_call_record(user=alice, tool_name="GMAIL_SEARCH", session_id="s", agent=token.agent)
    fake_llm.then(f.content(text))
    assert learn_skills(turn.session_id)["proposed"] == 1
    skill = Skill.objects.get()
    assert (skill.trigger, skill.procedure) == (SKILL["trigger"], SKILL["procedure"])
    assert skill.tools_used == SKILL["tools_used"]


def test_an_answer_with_no_skill_in_it_proposes_nothing(fake_llm, queued, alice):
    token, _ = token_create(user=alice, name="laptop", agent_name="mail")
    token.agent.agent_type = AgentType.objects.create(name="gmail_agent")
    token.agent.save()
    turn = turn_append(user=alice, session_id="s", role="user", content="hi", agent=token.agent)
    tool_call_record(user=alice, tool_name="GMAIL_SEARCH", session_id="s", agent=token.agent)
    fake_llm.then(f.content("I could not find any reusable procedure in this conversation."))
    result = learn_skills(turn.session_id)
    assert result["status"] in ("failed", "done") and Skill.objects.count() == 0
