"""Consolidation: a finished conversation becomes a summary note plus knowledge items.

Due: sessions with at least MIN_TURNS unconsolidated turns and no turn for
GAIA_IDLE_CONSOLIDATE_MINUTES (14 days when idle consolidation is off), at most
BATCH_PER_USER a run. The model sees what memory already holds
(learning/consolidation_memory.py): the facts of turns extraction learned are not
learned again, and a fact superseded or retracted after the conversation is not brought
back. The LLM answers first; then one transaction marks the turns consolidated with a
conditional UPDATE and writes the note and items, so a re-run (worker killed, task
delivered twice) applies it once.
"""

from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.selectors import memory_on
from accounts.services import user_settings_get
from conversations.models import Session, Turn
from conversations.services.consolidation import (
    session_consolidated,
    session_consolidation_failed,
    session_consolidation_reset,
    turns_consolidation_claim,
    turns_consolidation_drop,
    turns_consolidation_skip,
)
from core.queue import enqueue_now
from learning import prompts
from learning.consolidation_memory import LEARNED, all_learned, known_memories, stale_facts
from learning.fact_sources import fact_turn
from learning.facts import facts_store
from learning.llm import LLMError, get_llm, llm_configured, shapes
from learning.llm.counters import llm_count
from memory.services import memory_session_note

MIN_TURNS = 5
OLD_SESSION_DAYS = 14
BATCH_PER_USER = 5
TRANSCRIPT_CHARS = 24_000
MAX_TURNS = 200


def sessions_due(*, user: Any = None, now: Any = None) -> QuerySet:
    """Sessions waiting for consolidation (one user's, or everyone's when user is None)."""
    now = now or timezone.now()
    idle = settings.GAIA_IDLE_CONSOLIDATE_MINUTES
    cutoff = now - (timedelta(minutes=idle) if idle > 0 else timedelta(days=OLD_SESSION_DAYS))
    sessions = Session.objects.for_user(user) if user is not None else Session.objects.all()
    return (
        sessions.filter(last_turn_at__lt=cutoff)
        .annotate(open_turns=Count("turns", filter=Q(turns__consolidated_at__isnull=True)))
        .filter(open_turns__gte=MIN_TURNS)
        .order_by("last_turn_at", "pk")
    )


def consolidation_sweep(*, now: Any = None) -> int:
    """Queue due sessions, at most BATCH_PER_USER per user; none without an LLM."""
    if not llm_configured():
        return 0
    queued: dict[int, int] = {}
    for pk, owner_id in sessions_due(now=now).values_list("pk", "owner_id")[:1000]:
        if queued.get(owner_id, 0) >= BATCH_PER_USER:
            continue
        queued[owner_id] = queued.get(owner_id, 0) + 1
        enqueue_now("learning.tasks.consolidate_session", (pk,), f"gaia:consolidate:{pk}", 600)
    return sum(queued.values())


def _transcript(turns: list[Turn]) -> tuple[list[Turn], str]:
    used, lines, size = [], [], 0
    for turn in turns:
        line = [
            turn.timestamp.isoformat(timespec="minutes"),
            turn.speaker or turn.role,
            turn.content,
        ]
        if turn.extraction_status in LEARNED:
            line.append("learned")
        size += len(turn.content) + 40
        if used and size > TRANSCRIPT_CHARS:
            break  # the rest waits for the next run
        used.append(turn)
        lines.append(line)
    return used, prompts.data(lines)


def consolidate_session(*, session_pk: int, force: bool = False) -> dict[str, Any]:
    """Consolidate one session's unconsolidated turns. `force` (on demand) skips the
    minimum-turns rule. Raises LLMError only when forced; otherwise failures are counted
    and the session stays due until GAIA_EXTRACTION_MAX_ATTEMPTS is reached."""
    session = Session.objects.select_related("owner").get(pk=session_pk)
    user = session.owner
    llm = get_llm()
    if llm is None:
        if force:
            raise LLMError("not_configured", "No LLM is configured (GAIA_LLM_URL).")
        return {"status": "waiting", "reason": "no LLM configured"}
    turns = list(
        Turn.objects.for_user(user)
        .filter(session=session, consolidated_at__isnull=True)
        .order_by("timestamp", "pk")[:MAX_TURNS]
    )
    if not memory_on(user):  # memory off: learn nothing from them
        turns_consolidation_skip(turn_ids=[t.pk for t in turns], when=timezone.now())
        return {"status": "skipped", "reason": "memory is turned off", "turns_consolidated": 0}
    if not turns or (not force and len(turns) < MIN_TURNS):
        return {"status": "nothing to do", "turns_consolidated": 0}
    used, transcript = _transcript(turns)
    known = prompts.data(known_memories(user=user, turns=used))
    try:
        answer = llm.complete_json(
            system=prompts.consolidation_system(user_settings_get(user).extraction_steering),
            prompt=(
                f"DATA\nMemory already holds:\n{known}\n"
                f"Conversation {prompts.data(session.session_id)}:\n{transcript}"
            ),
            schema=prompts.CONSOLIDATION_SCHEMA,
            read=shapes.consolidation,
            user=user,
            purpose=f"consolidation of session {session.pk}",
        )
    except LLMError as error:
        if force:
            raise
        return _failed(session, used, error)
    return _apply(session, used, answer)


def _failed(session: Session, turns: list[Turn], error: LLMError) -> dict[str, Any]:
    if error.kind == "circuit_open":
        return {"status": "waiting", "reason": str(error)}
    session_consolidation_failed(session_pk=session.pk)
    session.refresh_from_db(fields=["consolidation_attempts"])
    if session.consolidation_attempts < settings.GAIA_EXTRACTION_MAX_ATTEMPTS:
        return {"status": "retry later", "reason": f"{error.kind}: {error}"}
    # Give up on this batch: the turns stay searchable, they are just not summarised.
    turns_consolidation_drop(turn_ids=[t.pk for t in turns], when=timezone.now())
    session_consolidation_reset(session_pk=session.pk)
    llm_count("consolidation_dropped", user=session.owner, message=f"session {session.pk}")
    return {"status": "failed", "reason": f"{error.kind}: {error}"}


def _apply(session: Session, turns: list[Turn], answer: dict) -> dict[str, Any]:
    user, now = session.owner, timezone.now()
    ids = [t.pk for t in turns]
    first, last = turns[0].timestamp.date(), turns[-1].timestamp.date()
    span = first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"
    summary = answer["summary"].strip()
    with transaction.atomic():
        marked = turns_consolidation_claim(turn_ids=ids, owner_id=user.pk, when=now)
        if marked != len(ids):  # another run got here first
            transaction.set_rollback(True)
            return {"status": "already consolidated", "turns_consolidated": 0}
        note = _note(session, turns, f"Conversation {session.session_id} ({span}): {summary}")
        facts = _facts(session, turns, answer["facts"])
        session_consolidated(session=session, when=now, summary=summary)
    return {
        "status": "done",
        "session_id": session.session_id,
        "turns_consolidated": len(ids),
        "summary": summary,
        "note_id": note.pk if note else None,
        "facts": facts,
    }


def _facts(session: Session, turns: list[Turn], given: list[Any]) -> list[dict[str, Any]]:
    """Store the facts extraction did not already store, except those that would bring
    back what was superseded or retracted after these turns."""
    if all_learned(turns):
        return [{"content": "", "skipped": "learned by extraction"} for _ in given]
    since = max(t.timestamp for t in turns)
    stale = stale_facts(user=session.owner, facts=given, since=since)
    stored = iter(
        facts_store(
            user=session.owner,
            facts=[fact for fact, old in zip(given, stale, strict=True) if not old],
            source="consolidation",
            context=session.context,
            turn_for=partial(fact_turn, turns=turns),
        )
    )
    skipped = {"skipped": "superseded or retracted since"}
    return [
        {"content": fact.get("content", ""), **skipped} if old else next(stored)
        for fact, old in zip(given, stale, strict=True)
    ]


def _note(session: Session, turns: list[Turn], content: str) -> Any:
    """The session's diary note: its own item, never folded into another session's."""
    try:
        with transaction.atomic():
            return memory_session_note(
                user=session.owner,
                session_id=session.session_id,
                content=content,
                context=session.context,
                source_turn=turns[-1],
                first=turns[0].timestamp.date(),
                last=turns[-1].timestamp.date(),
            )
    except ValidationError as error:
        llm_count("operation_refused", user=session.owner, message="; ".join(error.messages))
        return None
