"""Seed 001's second way of learning a skill: self-reflection. The agent that ran a
session documents, at the end of the run, what it learned to do (`propose_skill`). It
takes the same path as the model's proposals at consolidation (skills/learn.py): read in
the shapes models write, scrubbed of the person's details (a trigger that named someone
kept scrubbed), then stored as proposed for staff to review, or validating a skill the
type already has."""

from typing import Any

from django.core.exceptions import ValidationError

from accounts.models import Agent
from accounts.selectors import memory_on
from conversations.models import Session, ToolCall
from skills import prompts
from skills.learn import skill_scrubbed
from skills.personal import personal_terms, scrubber_for


def skill_reflect(
    *, user: Any, agent: Agent | None, session_id: str, reflection: dict[str, Any]
) -> str:
    """Propose the skill `agent` says it learned in `user`'s session `session_id`;
    skill_propose's outcome ("proposed", "validated", ...) or "refused". Session.DoesNotExist
    for a session that is not the user's."""
    if not memory_on(user):
        raise ValidationError(
            "Memory is turned off for this user: nothing is learned from their sessions.",
            code="memory_disabled",
        )
    if agent is None or agent.agent_type_id is None:
        raise ValidationError(
            "Only an agent of a registered type proposes skills (staff register types; "
            "set the agent's type in the web app or with PATCH agents/{id}/).",
            code="no_agent_type",
        )
    session = Session.objects.for_user(user).get(session_id=session_id)
    [proposal] = prompts.read([reflection])["skills"] or [{}]
    called = ToolCall.objects.for_user(user).filter(session=session)
    tool_names = {*called.values_list("tool_name", flat=True), *proposal.get("tools_used", [])}
    scrubber = scrubber_for(
        user=user,
        terms=personal_terms(user, [session]),
        agent_type=agent.agent_type,
        tool_names=tool_names,
    )
    return skill_scrubbed(user, session, agent, scrubber, proposal)
