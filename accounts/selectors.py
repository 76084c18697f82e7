"""Reads of a person's account settings that other apps gate on."""

from typing import Any

from django.db.models import Min, QuerySet

from accounts.models import Agent, UserSettings


def memory_on(user: Any) -> bool:
    """Whether `user` keeps long-term memory (Settings: "Memory"). Off means session-only:
    nothing of theirs is recalled, profiled, put in a prompt, extracted or learned from
    until it is turned on again; what was stored stays, untouched. A pure read (no
    settings row is created for a user who never saved any)."""
    rows = UserSettings.objects.filter(user_id=user.pk)
    enabled = rows.values_list("memory_enabled", flat=True).first()
    return enabled is not False


def agent_owners(*, name: str) -> QuerySet:
    """The ids of the accounts that have an agent called `name` (a subquery)."""
    return Agent.objects.filter(name=name).values("owner_id")


def agents_first_seen(
    *, owner_ids: QuerySet, agent_ids: QuerySet, leave_out: str = ""
) -> list[dict[str, Any]]:
    """The names of those accounts' agents among `agent_ids` (but `leave_out`), each with
    when the first of that name was made, by name."""
    rows = (
        Agent.objects.filter(owner_id__in=owner_ids, pk__in=agent_ids)
        .exclude(name=leave_out)
        .values("name")
        .annotate(first=Min("created_at"))
        .order_by("name")
    )
    return list(rows)
