"""django-q2 tasks of the memory app: thin wrappers over the background services.

Arguments are ids; every task is idempotent (django-q2 may deliver one twice).
"""

from typing import Any

from django.contrib.auth import get_user_model

from memory.background import decay, profile, prune, reconciliation, tool_errors


def _user(user_id: int) -> Any:
    return get_user_model().objects.get(pk=user_id)


def reconcile_all() -> int:
    return reconciliation.reconciliation_sweep()


def reconcile_user(user_id: int) -> dict:
    return reconciliation.reconcile_user(user=_user(user_id))


def decay_all() -> dict:
    return decay.decay_everyone()


def prune_all() -> dict:
    return prune.prune_everyone()


def profile_refresh(user_id: int) -> dict:
    return profile.profile_refresh(user=_user(user_id))


def tool_errors_sync(user_id: int, tool_name: str) -> dict:
    return tool_errors.tool_errors_sync(user_id=user_id, tool_name=tool_name)
