"""Learn skills from a finished session in which an agent of a registered type used tools.

The model reads the session's turns and tool calls (secrets already masked when they
were logged; tool arguments by name only) and proposes procedures. Each is scrubbed of
the user's details (skills/scrub.py) and stored as proposed, or validates a skill the
type already has (skills/services.py).
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from accounts.models import Agent
from conversations.models import Session, ToolCall, Turn
from learning.llm import LLMError, get_llm
from learning.llm.counters import llm_count
from memory.models import KnowledgeItem
from skills import prompts
from skills.scrub import Scrubber, capitalised, words
from skills.services import skill_propose

TURNS_MAX = 60
CALLS_MAX = 60
TURN_CHARS = 1500


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


def _personal_terms(user: Any, turns: list[Turn]) -> set[str]:
    """What points at this user: names, speakers, their entities, their turns' proper nouns."""
    terms = {user.get_username(), user.first_name, user.last_name}
    terms |= set(user.email.split("@")[0].replace(".", " ").split()) if user.email else set()
    terms |= {t.speaker for t in turns if t.speaker}
    for entity in (
        KnowledgeItem.objects.for_user(user).exclude(entity="").values_list("entity", flat=True)
    ):
        name = entity.split(":", 1)[-1].replace("_", " ").strip()
        terms |= {name, *name.split()}
    terms |= capitalised(t.content for t in turns if t.role == "user")
    return {t for t in terms if t and len(t) >= 2}


def skills_learn(*, session_pk: int) -> dict[str, Any]:
    """Propose skills from one session; returns what happened (for the task log)."""
    session = Session.objects.filter(pk=session_pk).first()
    if session is None:
        return {"status": "skipped", "reason": "no such session"}
    user = get_user_model().objects.get(pk=session.owner_id)
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
    turns = Turn.objects.for_user(user).filter(session=session).order_by("timestamp", "pk")
    turns = list(turns[:TURNS_MAX])
    agent_type = agent.agent_type
    try:
        answer = llm.complete_json(
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
    except LLMError as error:
        return {"status": "failed", "reason": error.kind}
    keep = words([agent_type.name, *(c.tool_name for c in calls)])
    outcomes: dict[str, int] = {}
    for proposal in answer["skills"]:
        scrubber = Scrubber(personal=_personal_terms(user, turns), keep=keep)
        fields = {
            **{name: scrubber.text(proposal[name]) for name in prompts.TEXT_FIELDS},
            **{name: scrubber.items(proposal[name]) for name in prompts.LIST_FIELDS},
            "confidence": proposal["confidence"],
        }
        try:
            _, outcome = skill_propose(
                agent_type=agent_type,
                fields=fields,
                scrubbed=scrubber.replaced,
                contributor=user,
                session=session,
            )
        except ValidationError as error:
            llm_count("operation_refused", user=user, message="; ".join(error.messages))
            outcome = "refused"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {"status": "done", "agent_type": agent_type.name, **outcomes}
