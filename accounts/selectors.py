"""Reads of a person's account settings that other apps gate on."""

from typing import Any

from accounts.models import UserSettings


def memory_on(user: Any) -> bool:
    """Whether `user` keeps long-term memory (Settings: "Memory"). Off means session-only:
    nothing of theirs is recalled, profiled, put in a prompt, extracted or learned from
    until it is turned on again; what was stored stays, untouched. A pure read (no
    settings row is created for a user who never saved any)."""
    rows = UserSettings.objects.filter(user_id=user.pk)
    enabled = rows.values_list("memory_enabled", flat=True).first()
    return enabled is not False
