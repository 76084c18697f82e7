"""Extraction: after a user turn, ask the LLM which memory operations it implies.

Idempotent by construction: the LLM is asked first, then ONE transaction moves the
turn from "pending" to "done" with a conditional UPDATE and applies the operations. A
worker killed before the commit leaves the turn pending (re-run applies it); a second
run finds it done and does nothing. One bad operation fails alone (savepoint).
"""

import logging
from typing import Any

import jsonschema
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.services import user_settings_get
from conversations.models import Turn
from conversations.services import (
    turn_extraction_attempt_failed,
    turn_extraction_claim,
    turn_extraction_failed,
    turn_extraction_note_error,
    turn_extraction_skip,
)
from core.queue import enqueue_now, enqueue_on_commit
from learning import prompts
from learning.facts import facts_store
from learning.llm import LLMError, get_llm, llm_configured
from learning.llm.counters import llm_count
from memory.models import SOURCE_CONFIDENCE, KnowledgeItem
from memory.recall import recall
from memory.services import memory_forget, memory_supersede

log = logging.getLogger("gaia.background")
CONTEXT_ITEMS = 10
HISTORY_TURNS = 4
SWEEP_BATCH = 200
SWEEP_MIN_AGE_SECONDS = 120


def extraction_enqueue(turn: Turn) -> None:
    """Queue extraction of a pending turn after commit (only when an LLM is configured)."""
    if turn.extraction_status == "pending" and llm_configured():
        enqueue_on_commit("learning.tasks.extract_turn", turn.pk)


def extraction_sweep(*, now: Any = None) -> int:
    """Queue pending turns that no task has finished (queued while down, failed to queue).

    Returns how many were queued; nothing when no LLM is configured (backlog kept).
    """
    if not llm_configured():
        return 0
    cutoff = (now or timezone.now()) - timezone.timedelta(seconds=SWEEP_MIN_AGE_SECONDS)
    ids = list(
        Turn.objects.filter(extraction_status="pending", created_at__lt=cutoff)
        .order_by("pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for turn_id in ids:
        enqueue_now("learning.tasks.extract_turn", (turn_id,), f"gaia:extract:{turn_id}", 600)
    return len(ids)


def _steering(user: Any) -> str:
    return user_settings_get(user).extraction_steering or prompts.DEFAULT_STEERING


def _prompt(turn: Turn, items: list[KnowledgeItem]) -> str:
    history = list(
        Turn.objects.for_user(turn.owner)
        .filter(session_id=turn.session_id, timestamp__lte=turn.timestamp)
        .exclude(pk=turn.pk)
        .order_by("-timestamp", "-pk")[:HISTORY_TURNS]
    )[::-1]
    memories = [
        {"knowledge_id": i.pk, "category": i.category, "content": i.content, "entity": i.entity}
        for i in items
    ]
    return (
        "DATA\nExisting memories:\n"
        f"{prompts.data(memories)}\n"
        f"Recent conversation:\n{prompts.data([[t.role, t.content] for t in history])}\n"
        f"Latest user message:\n{prompts.data(turn.content)}"
    )


def extract_turn(*, turn_id: int) -> dict[str, Any]:
    """Run extraction for one pending turn; a summary of what happened."""
    llm = get_llm()
    if llm is None:
        return {"status": "waiting", "reason": "no LLM configured"}
    turn = (
        Turn.objects.select_related("owner").filter(pk=turn_id, extraction_status="pending").first()
    )
    if turn is None:
        return {"status": "not pending"}
    user = turn.owner
    options = user_settings_get(user)
    if not (options.memory_enabled and options.auto_extract):
        turn_extraction_skip(turn_id=turn.pk)
        return {"status": "skipped"}
    items = [
        h.item for h in recall(user=user, query=turn.content, top_k=CONTEXT_ITEMS, min_relevance=0)
    ]
    try:
        answer = llm.complete_json(
            system=prompts.extraction_system(_steering(user)),
            prompt=_prompt(turn, items),
            schema=prompts.EXTRACTION_SCHEMA,
            user=user,
            purpose=f"extraction of turn {turn.pk}",
        )
    except LLMError as error:
        return extraction_failed(turn, error)
    return apply_operations(turn=turn, items=items, operations=answer["operations"])


def extraction_failed(turn: Turn, error: LLMError) -> dict[str, Any]:
    """Record a failed attempt. Bad answers end the turn as failed; an unreachable
    server leaves it pending for the sweep until GAIA_EXTRACTION_MAX_ATTEMPTS."""
    message = f"{error.kind}: {error}"[:500]
    pending = Turn.objects.filter(pk=turn.pk, extraction_status="pending")
    if error.kind == "circuit_open":  # no call was made: not the turn's fault
        turn_extraction_note_error(turn_id=turn.pk, message=message)
        return {"status": "waiting", "reason": message}
    with transaction.atomic():
        turn_extraction_attempt_failed(turn_id=turn.pk, message=message)
        final = (
            not error.transient
            or pending.filter(
                extraction_attempts__gte=settings.GAIA_EXTRACTION_MAX_ATTEMPTS
            ).exists()
        )
        if final:
            turn_extraction_failed(turn_id=turn.pk)
    return {"status": "failed" if final else "retry later", "reason": message}


def apply_operations(
    *, turn: Turn, items: list[KnowledgeItem], operations: list[Any]
) -> dict[str, Any]:
    """Claim the turn and apply its operations in one transaction; applied at most once."""
    user = turn.owner
    known = {item.pk: item for item in items}
    outcome = {"added": 0, "updated": 0, "deleted": 0, "unchanged": 0, "refused": 0}
    with transaction.atomic():
        if not turn_extraction_claim(turn_id=turn.pk, owner_id=user.pk):
            return {"status": "not pending"}
        for operation in operations:
            kind = _apply_one(turn, known, operation)
            outcome[kind] += 1
    return {"status": "done", **outcome}


def _apply_one(turn: Turn, known: dict[int, KnowledgeItem], operation: Any) -> str:
    user = turn.owner
    op = operation.get("op") if isinstance(operation, dict) else None
    try:
        if op not in prompts.OPERATION_SCHEMAS:
            raise ValidationError(f"Unknown operation {op!r}.")
        try:
            jsonschema.validate(operation, prompts.OPERATION_SCHEMAS[op])
        except jsonschema.ValidationError as error:
            raise ValidationError(f"Malformed {op}: {error.message}") from None
        if op == "add":
            stored = facts_store(
                user=user,
                facts=[operation],
                source="llm_extract",
                context=turn.context,
                source_turn=turn,
            )
            return "refused" if "error" in stored[0] else "added"
        item = known.get(operation["knowledge_id"])
        if item is None:  # only the memories shown to the model may be changed
            raise ValidationError(f"Unknown knowledge_id {operation['knowledge_id']}.")
        if op == "update" and operation["content"].strip() == item.content:
            return "unchanged"  # a new row saying the same thing would only add noise
        with transaction.atomic():
            if op == "update":
                memory_supersede(
                    user=user,
                    item_id=item.pk,
                    content=operation["content"],
                    source="llm_extract",
                    source_turn=turn,
                    confidence=max(item.confidence, SOURCE_CONFIDENCE["llm_extract"]),
                )
                return "updated"
            _retire(turn, item, operation.get("reason") or "no longer true")
            return "deleted"
    except (ValidationError, ObjectDoesNotExist) as error:
        message = "; ".join(getattr(error, "messages", [str(error)]))
        llm_count("operation_refused", user=user, message=f"turn {turn.pk}: {message}"[:500])
        return "refused"


def _retire(turn: Turn, item: KnowledgeItem, reason: str) -> None:
    """A delete keeps lineage: the item is superseded by a forgotten tombstone that says
    why, so history shows what happened and nothing is hard-deleted."""
    tombstone = memory_supersede(
        user=turn.owner,
        item_id=item.pk,
        content=f"Retracted: {item.content} (reason: {reason})",
        source="llm_extract",
        source_turn=turn,
    )
    memory_forget(user=turn.owner, item_id=tombstone.pk)
