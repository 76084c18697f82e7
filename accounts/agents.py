"""Agents: every API token acts as one agent of its account, and every write records it.

An agent has a default context: what it stores without naming a context goes there, and
what it recalls without naming one is that context plus `global` (shared by all of the
user's agents). A request may override it with the `X-Gaia-Context` header, the server
side of seed 000's `set_memory_context`. An agent may be an instance of an `AgentType`
that staff registered; the type's skill memory is shared by its agents (skills app).
"""

from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import QuerySet

from accounts.models import Agent, AgentType
from core.ownership import own_row
from core.validation import clean_short

CONTEXT_HEADER = "HTTP_X_GAIA_CONTEXT"
EDITABLE = ("description", "default_context", "agent_type")


def agent_list(*, user: Any) -> QuerySet[Agent]:
    return Agent.objects.for_user(user).select_related("agent_type").order_by("name")


def agent_get(*, user: Any, agent_id: int) -> Agent:
    return agent_list(user=user).get(pk=agent_id)


def own_agent(user: Any, agent: Any) -> Agent | None:
    """`agent` (an Agent or its id) if it is `user`'s; any other is unknown."""
    return own_row(user, Agent, agent, field="agent")


def agent_by_name(*, user: Any, name: str) -> Agent | None:
    return Agent.objects.for_user(user).filter(name=name).first()


def agent_update(*, user: Any, agent_id: int, **changes: Any) -> Agent:
    """Change an agent's description, default context or type (a registered type's name,
    or "" for none); unknown names and bad values are refused."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise ValidationError({name: "This field cannot be changed." for name in sorted(unknown)})
    agent = agent_get(user=user, agent_id=agent_id)
    if "description" in changes:
        agent.description = clean_short(changes["description"], field="description", limit=2000)
    if "default_context" in changes:
        agent.default_context = clean_short(
            changes["default_context"], field="default_context", limit=100, default="global"
        )
    if "agent_type" in changes:
        name = changes["agent_type"] or ""
        found = AgentType.objects.filter(name=name).first() if name else None
        if name and found is None:
            raise ValidationError({"agent_type": "No such agent type."}, code="does_not_exist")
        agent.agent_type = found
    agent.save()
    return agent


def context_default(agent: Agent | None, override: str | None = None) -> str:
    """Where a write that names no context goes: the request's override, else the
    agent's default context, else global."""
    if override:
        return override
    return agent.default_context if agent is not None else "global"


def request_agent(request: Any) -> Agent | None:
    """The agent a request acts as (its token's), None for a person in the web app."""
    return getattr(getattr(request, "auth", None), "agent", None)


def request_context(request: Any) -> str | None:
    """The `X-Gaia-Context` header of a request, checked like any context; None if absent."""
    value = request.META.get(CONTEXT_HEADER, "")
    if not value.strip():
        return None
    return clean_short(value, field="X-Gaia-Context", limit=100)


def request_active_context(request: Any) -> str:
    """The context a request works in: its override, else its agent's default."""
    return context_default(request_agent(request), request_context(request))


def with_context(entry: dict[str, Any], override: str | None) -> dict[str, Any]:
    """A write's fields with the request's context override where it names none."""
    if override and not entry.get("context"):
        return {**entry, "context": override}
    return entry


def read_context(given: str | None, active: str) -> str | None:
    """The context a read searches: the one asked for, else the active one (global, the
    plain default, searches every context)."""
    if given:
        return given
    return None if active == "global" else active
