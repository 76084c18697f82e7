"""Extraction: after a user turn, ask the LLM which memory operations it implies.

Idempotent by construction: the LLM is asked first, then ONE transaction moves the
turn from "pending" to "done" with a conditional UPDATE and applies the operations. A
worker killed before the commit leaves the turn pending (re-run applies it); a second
run finds it done and does nothing. One bad operation fails alone (savepoint).

No silent loss: a turn is "done" only when every operation was applied or explicitly
skipped (noop, duplicate, an update that changes nothing). A refused operation (unknown,
malformed, an id the model was not shown, a privileged category, a secret) is counted
on the turn, which ends "partial" (or "failed" when nothing else was applied) with the
reasons. While the model is unreachable a turn stays pending and is tried again with
back-off for GAIA_EXTRACTION_RETRY_HOURS before it ends failed.
"""

import logging
from datetime import timedelta
from typing import Any

import jsonschema
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.services import user_settings_get
from conversations.models import Turn
from conversations.services.extraction import (
    turn_extraction_attempt_failed,
    turn_extraction_claim,
    turn_extraction_failed,
    turn_extraction_refused,
    turn_extraction_retry_later,
    turn_extraction_skip,
)
from core.queue import enqueue_now, enqueue_on_commit
from learning import prompts
from learning.facts import facts_store
from learning.graph_follow import graph_follow_turn
from learning.graph_proposals import known_names, proposals_store
from learning.llm import LLMError, get_llm, llm_configured, shapes
from learning.llm.counters import llm_count
from memory.lineage import memory_retract, memory_supersede
from memory.models import SOURCE_CONFIDENCE, KnowledgeItem
from memory.recall import recall
from webhooks.services import events_emit

log = logging.getLogger("gaia.background")
CONTEXT_ITEMS = 10
HISTORY_TURNS = 4
SWEEP_BATCH = 200
SWEEP_MIN_AGE_SECONDS = 120
# Waiting between tries while the model is unreachable: as long as it has been failing,
# at least a minute and at most an hour (1, 1, 2, 4, ... 60, 60 minutes).
BACKOFF_MIN = timedelta(minutes=1)
BACKOFF_MAX = timedelta(hours=1)


def extraction_enqueue(turn: Turn) -> None:
    """Queue extraction of a pending turn after commit (only when an LLM is configured)."""
    if turn.extraction_status == "pending" and llm_configured():
        enqueue_on_commit("learning.tasks.extract_turn", turn.pk)


def extraction_sweep(*, now: Any = None) -> int:
    """Queue pending turns that no task has finished (queued while down, failed to queue,
    or waiting to be tried again after their back-off).

    Returns how many were queued; nothing when no LLM is configured (backlog kept). With
    nothing to queue while the model is known to fail, it is probed, so its state (and
    /health/) comes back to ok once the server is back even when no work is waiting.
    """
    llm = get_llm()
    if llm is None:
        return 0
    now = now or timezone.now()
    cutoff = now - timezone.timedelta(seconds=SWEEP_MIN_AGE_SECONDS)
    ids = list(
        Turn.objects.filter(extraction_status="pending", created_at__lt=cutoff)
        .filter(Q(extraction_retry_at__isnull=True) | Q(extraction_retry_at__lte=now))
        .order_by("pk")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for turn_id in ids:
        enqueue_now("learning.tasks.extract_turn", (turn_id,), f"gaia:extract:{turn_id}", 600)
    if not ids:
        llm.recheck()
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
    said_by = f" (said by {prompts.data(turn.speaker)})" if turn.speaker else ""
    recent = [[t.speaker or t.role, t.content] for t in history]
    known = known_names(user=turn.owner)
    entities = f"Known entities:\n{prompts.data(known)}\n" if known else ""
    return (
        "DATA\nExisting memories:\n"
        f"{prompts.data(memories)}\n{entities}"
        f"Recent conversation:\n{prompts.data(recent)}\n"
        f"Latest user message{said_by}:\n{prompts.data(turn.content)}"
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
        h.item
        for h in recall(
            user=user, query=turn.content, top_k=CONTEXT_ITEMS, min_relevance=0, judge=False
        )
    ]
    try:
        answer = llm.complete_json(
            system=prompts.extraction_system(_steering(user)),
            prompt=_prompt(turn, items),
            schema=prompts.EXTRACTION_SCHEMA,
            read=shapes.operations,
            user=user,
            purpose=f"extraction of turn {turn.pk}",
        )
    except LLMError as error:
        return extraction_failed(turn, error)
    return apply_operations(turn=turn, items=items, operations=answer["operations"])


def extraction_failed(turn: Turn, error: LLMError) -> dict[str, Any]:
    """Record a failed attempt. An unusable answer (after its repair request) ends the
    turn as failed; an unreachable server keeps it pending, tried again with back-off,
    until GAIA_EXTRACTION_RETRY_HOURS have passed since the first failure."""
    message = f"{error.kind}: {error}"[:500]
    if not error.transient:
        with transaction.atomic():
            turn_extraction_attempt_failed(turn_id=turn.pk, message=message)
            if turn_extraction_failed(turn_id=turn.pk):
                _failure_announce(turn, message)
        return {"status": "failed", "reason": message}
    now = timezone.now()
    failing = now - (turn.extraction_failing_since or now)
    hours = settings.GAIA_EXTRACTION_RETRY_HOURS
    if failing >= timedelta(hours=hours):
        gave_up = f"{message} (tried again for {hours:g} h; retry it from its conversation)"
        with transaction.atomic():
            if turn_extraction_failed(turn_id=turn.pk, message=gave_up[:500]):
                _failure_announce(turn, gave_up[:500])
        return {"status": "failed", "reason": gave_up}
    retry_at = now + min(max(failing, BACKOFF_MIN), BACKOFF_MAX)
    circuit_open = error.kind == "circuit_open"  # no call was made: not an attempt
    turn_extraction_retry_later(
        turn_id=turn.pk, message=message, retry_at=retry_at, attempted=not circuit_open
    )
    return {
        "status": "waiting" if circuit_open else "retry later",
        "reason": message,
        "retry_at": retry_at.isoformat(),
    }


def _failure_announce(turn: Turn, reason: str) -> None:
    """Webhooks' extraction.failed, in the transaction that ends the turn failed."""
    session = turn.session
    data = {
        "turn": {"id": turn.pk, "session_id": session.session_id, "context": turn.context},
        "reason": reason,
    }
    events_emit(user=turn.owner, events=[("extraction.failed", None, data)])


def apply_operations(
    *, turn: Turn, items: list[KnowledgeItem], operations: list[Any]
) -> dict[str, Any]:
    """Claim the turn and apply its operations in one transaction; applied at most once.

    "done" when every operation was applied or skipped; otherwise the refused ones are
    recorded on the turn ("partial", or "failed" when none was applied or skipped)."""
    user = turn.owner
    known = {item.pk: item for item in items}
    outcome = {"added": 0, "updated": 0, "deleted": 0, "unchanged": 0, "skipped": 0, "refused": 0}
    reasons: list[str] = []
    changed: dict[int, tuple[str, str | None]] = {}  # corrected or withdrawn: (before, now)
    with transaction.atomic():
        if not turn_extraction_claim(turn_id=turn.pk, owner_id=user.pk):
            return {"status": "not pending"}
        for operation in operations:
            kind, reason = _apply_one(turn, known, operation, changed)
            outcome[kind] += 1
            if reason:
                reasons.append(reason)
        graph_follow_turn(user=user, turn_id=turn.pk, changed=changed)
        status = "done"
        if outcome["refused"]:
            applied = len(operations) > outcome["refused"]
            status = "partial" if applied else "failed"
            turn_extraction_refused(
                turn_id=turn.pk,
                refused=outcome["refused"],
                applied=applied,
                message=f"{outcome['refused']} of {len(operations)} operations refused: "
                + "; ".join(reasons),
            )
            if status == "failed":
                _failure_announce(turn, "; ".join(reasons)[:500])
    return {"status": status, **outcome}


def _apply_one(
    turn: Turn,
    known: dict[int, KnowledgeItem],
    operation: Any,
    changed: dict[int, tuple[str, str | None]],
) -> tuple[str, str]:
    """What became of one operation ("added", ..., "refused") and why it was refused;
    `changed` gains the item an update or delete changed."""
    user = turn.owner
    op = operation.get("op") if isinstance(operation, dict) else None
    try:
        if op == "noop":
            return "skipped", ""
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
            )[0]
            if "error" in stored:
                return "refused", f"add: {stored['error']}"[:200]
            return ("skipped" if stored.get("deduplicated") else "added"), ""
        item = known.get(operation["knowledge_id"])
        if item is None:  # only the memories shown to the model may be changed
            raise ValidationError(f"Unknown knowledge_id {operation['knowledge_id']}.")
        if op == "update" and operation["content"].strip() == item.content:
            return "unchanged", ""  # a new row saying the same thing would only add noise
        before = changed.get(item.pk, (item.content, None))[0]  # as the turn found it
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
                proposals_store(user=user, fact=operation, item_id=item.pk, turn_id=turn.pk)
                changed[item.pk] = (before, operation["content"])
                return "updated", ""
            _retire(turn, item, operation.get("reason") or "no longer true")
            changed[item.pk] = (before, None)
            return "deleted", ""
    except (ValidationError, ObjectDoesNotExist) as error:
        message = "; ".join(getattr(error, "messages", [str(error)]))
        llm_count("operation_refused", user=user, message=f"turn {turn.pk}: {message}"[:500])
        return "refused", message[:200]


def _retire(turn: Turn, item: KnowledgeItem, reason: str) -> None:
    """A delete keeps lineage: the item says it was retracted and why (its text is kept
    as a version) and is forgotten, so history shows what happened."""
    memory_retract(
        user=turn.owner, item_id=item.pk, reason=reason, source="llm_extract", source_turn=turn
    )
