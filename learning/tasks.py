"""django-q2 tasks of the learning jobs: thin wrappers over their services.

Arguments are ids; every task is idempotent (django-q2 may deliver one twice). A task
for one person waits while their erase runs (core.erasing.held_during_erase).
"""

from typing import Any

from django.contrib.auth import get_user_model

from conversations.selectors import session_owner_id, turn_owner_id
from core.erasing import held_during_erase
from learning import consolidation, decay, extraction, profile, reconciliation, tool_errors


def _user(user_id: int) -> Any:
    return get_user_model().objects.get(pk=user_id)


def _the_user(user_id: int, *_: object, **__: object) -> int:
    return user_id


@held_during_erase(turn_owner_id)
def extract_turn(turn_id: int) -> dict:
    return extraction.extract_turn(turn_id=turn_id)


def extract_pending_sweep() -> int:
    return extraction.extraction_sweep()


@held_during_erase(session_owner_id)
def consolidate_session(session_pk: int) -> dict:
    return consolidation.consolidate_session(session_pk=session_pk)


def consolidate_sweep() -> int:
    return consolidation.consolidation_sweep()


def reconcile_all() -> int:
    return reconciliation.reconciliation_sweep()


@held_during_erase(_the_user)
def reconcile_user(user_id: int) -> dict:
    return reconciliation.reconcile_user(user=_user(user_id))


def decay_all() -> dict:
    return decay.decay_everyone()


@held_during_erase(_the_user)
def profile_refresh(user_id: int, context: str = "") -> dict:
    return profile.profile_refresh(user=_user(user_id), context=context)


@held_during_erase(_the_user)
def tool_errors_sync(user_id: int, tool_name: str) -> dict:
    return tool_errors.tool_errors_sync(user_id=user_id, tool_name=tool_name)
