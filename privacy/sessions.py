"""Erasing one conversation session: what was said in it and what was learned from it.

`session_erase` erases (privacy's `memory_erase`, traces and all) every memory stored
with or learned from one of the session's turns, its conversation's diary note among
them, then deletes its turns, its tool calls and the session itself, and the queued
tasks and task records that name them. The person's other sessions and memories stay,
and so do skills the session taught (scrubbed of the person's details; erasing the person,
`memory_erase_user`, takes back their part).
"""

from typing import Any

from django.db import transaction

from conversations.changes import turns_changed
from conversations.models import Session, ToolCall, Turn
from memory.models import KnowledgeItem
from privacy import storage
from privacy.services import memory_erase
from privacy.task_records import Subjects, tasks_erase


def session_erase(*, user: Any, session_id: str) -> dict[str, int]:
    """Erase `user`'s session `session_id` (nothing when they have none); returns what
    was erased, by kind. Cannot be undone."""
    session = Session.objects.for_user(user).filter(session_id=session_id).first()
    counts = {"knowledge": 0, "turns": 0, "tool_calls": 0, "sessions": 0}
    if session is None:
        return counts
    turn_ids = list(
        Turn.objects.for_user(user).filter(session=session).values_list("pk", flat=True)
    )
    learned = KnowledgeItem.objects.for_user(user).filter(source_turn_id__in=turn_ids)
    item_ids = list(learned.values_list("pk", flat=True))
    for item_id in item_ids:
        try:
            memory_erase(user=user, item_id=item_id)
        except KnowledgeItem.DoesNotExist:  # erased with an item that replaced it
            continue
        counts["knowledge"] += 1
    with transaction.atomic():
        counts["tool_calls"] = ToolCall.objects.for_user(user).filter(session=session).delete()[0]
        counts["turns"] = Turn.objects.for_user(user).filter(pk__in=turn_ids).delete()[0]
        turns_changed(user.pk, removed=turn_ids)
        tasks_erase(Subjects(turn=set(turn_ids), session={session.pk}, item=set(item_ids)))
        counts["sessions"] = Session.objects.for_user(user).filter(pk=session.pk).delete()[0]
        storage.purge_after_commit()  # after the last delete, as every erase
    return counts
