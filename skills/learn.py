"""Learn skills from a finished session in which an agent of a registered type used tools.

The model reads the session's turns and tool calls (secrets already masked when they
were logged; tool arguments by name only) and proposes procedures. Each is scrubbed of
the user's details (skills/scrub.py, with the terms of skills/personal.py) and stored as
proposed, or validates a skill the type already has (skills/services.py). A trigger
that named someone ("When Sarah Chen asks for the report") is kept scrubbed ("When
<name> asks for the report"): the lesson stays, the person goes; staff see the count.
Only a trigger that scrubbing leaves without words of its own is refused. The words of
the proposals count as taught to the type by this person (a word enough people taught is
the type's own, skills/personal.py `taught_words`).
"""

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from accounts.models import Agent, AgentType
from accounts.selectors import memory_on
from conversations.models import Session, ToolCall, Turn
from learning.llm import LLM, LLMError, get_llm
from learning.llm.counters import llm_count
from skills import prompts
from skills.personal import personal_terms, scrubber_for
from skills.scrub import PLACEHOLDERS, Scrubber, words
from skills.services import skill_propose, skill_words_record

TURNS_MAX = 60
CALLS_MAX = 60
TURN_CHARS = 1500
TRIGGER_WORDS_MIN = 3  # words other than placeholders a scrubbed trigger must keep
_WORD = re.compile(r"[^\W\d_]+")


def _agent(user: Any, session: Session) -> Agent | None:
    """The typed agent that worked in the session (its latest turn or call's)."""
    for model in (ToolCall, Turn):
        row = (
            model.objects.for_user(user)
            .filter(session=session, agent__agent_type__isnull=False)
            .select_related("agent__agent_type")
            .order_by("-timestamp", "-pk")
            .first()
        )
        if row is not None:
            return row.agent
    return None


def skills_learn(*, session_pk: int) -> dict[str, Any]:
    """Propose skills from one session; returns what happened (for the task log)."""
    session = Session.objects.filter(pk=session_pk).first()
    if session is None:
        return {"status": "skipped", "reason": "no such session"}
    user = get_user_model().objects.get(pk=session.owner_id)
    if not memory_on(user):  # session-only: nothing is learned from their turns
        return {"status": "skipped", "reason": "memory is turned off"}
    agent = _agent(user, session)
    if agent is None:
        return {"status": "skipped", "reason": "no agent of a registered type"}
    calls = ToolCall.objects.for_user(user).filter(session=session).order_by("timestamp", "pk")
    calls = list(calls[:CALLS_MAX])
    if not calls:
        return {"status": "skipped", "reason": "no tool calls"}
    llm = get_llm()
    if llm is None:
        return {"status": "skipped", "reason": "no model configured"}
    try:
        answer = _ask(llm, user, session, agent.agent_type, calls)
    except LLMError as error:
        return {"status": "failed", "reason": error.kind}
    outcomes = _propose_all(user, session, agent, calls, answer["skills"])
    return {"status": "done", "agent_type": agent.agent_type.name, **outcomes}


def _ask(
    llm: LLM, user: Any, session: Session, agent_type: AgentType, calls: list[ToolCall]
) -> dict[str, Any]:
    """The model's proposals for the session's turns and tool calls (LLMError if none)."""
    turns = Turn.objects.for_user(user).filter(session=session).order_by("timestamp", "pk")
    turns = list(turns[:TURNS_MAX])
    return llm.complete_json(
        system=prompts.system(agent_type.name),
        prompt=prompts.session_data(
            [{"role": t.role, "content": t.content[:TURN_CHARS]} for t in turns],
            [
                {
                    "tool": c.tool_name,
                    "arguments": sorted(c.args) if isinstance(c.args, dict) else [],
                    "success": c.success,
                    "error": c.error[:300],
                }
                for c in calls
            ],
        ),
        schema=prompts.SCHEMA,
        read=prompts.read,
        user=user,
        purpose="skill learning",
    )


def _propose_all(
    user: Any, session: Session, agent: Agent, calls: list[ToolCall], proposals: list[dict]
) -> dict[str, int]:
    """Count the proposals' words as taught by this person, then scrub and store each
    proposal; how many ended each way."""
    texts = [str(v) for p in proposals for v in p.values() if isinstance(v, str)]
    texts += [str(i) for p in proposals for v in p.values() if isinstance(v, list) for i in v]
    skill_words_record(owner_id=user.pk, agent_type=agent.agent_type, words_taught=words(texts))
    scrubber = scrubber_for(
        user=user,
        terms=personal_terms(user, [session]),
        agent_type=agent.agent_type,
        tool_names={c.tool_name for c in calls},
    )
    outcomes: dict[str, int] = {}
    for proposal in proposals:
        outcome = skill_scrubbed(user, session, agent, scrubber, proposal)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


def trigger_left(trigger: str) -> bool:
    """Whether a scrubbed trigger still says when to use the skill (enough words of its
    own besides the placeholders)."""
    own = [w for w in _WORD.findall(trigger) if w.lower() not in PLACEHOLDERS]
    return len(own) >= TRIGGER_WORDS_MIN


def _clean_again(scrubber: Scrubber, trigger: str) -> bool:
    """Whether a trigger that named someone is clean once scrubbed: scrubbed again on its
    own (none of the rest of the skill's lower-case words let through), nothing more
    goes. Otherwise it is refused whole."""
    before = scrubber.replaced
    scrubber.text(trigger)
    clean = scrubber.replaced == before
    scrubber.replaced = before
    return clean


def skill_scrubbed(
    user: Any, session: Session, agent: Agent, scrubber: Scrubber, proposal: dict
) -> str:
    """One proposal scrubbed and stored (skill_propose's outcome), or "refused"; a
    trigger that named someone is kept scrubbed."""
    scrubber.replaced = 0
    fields, in_trigger = scrubber.skill(proposal)
    trigger = fields.get("trigger") or ""
    if not trigger_left(trigger) or (in_trigger and not _clean_again(scrubber, trigger)):
        llm_count("operation_refused", user=user, message="A skill's trigger named someone.")
        return "refused"
    try:
        _, outcome = skill_propose(
            agent=agent, session=session, fields=fields, scrubbed=scrubber.replaced
        )
    except ValidationError as error:
        llm_count("operation_refused", user=user, message="; ".join(error.messages))
        return "refused"
    return outcome
