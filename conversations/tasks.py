"""django-q2 tasks of the conversations app: thin wrappers over the background services.

Arguments are ids; every task is idempotent (django-q2 may deliver one twice).
"""

from memory.background import consolidation, extraction


def extract_turn(turn_id: int) -> dict:
    return extraction.extract_turn(turn_id=turn_id)


def extract_pending_sweep() -> int:
    return extraction.extraction_sweep()


def consolidate_session(session_pk: int) -> dict:
    return consolidation.consolidate_session(session_pk=session_pk)


def consolidate_sweep() -> int:
    return consolidation.consolidation_sweep()
