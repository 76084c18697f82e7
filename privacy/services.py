"""Forgetting for real: erase one item's traces, or a user's whole memory.

`memory_erase` deletes one item; before it does, `item_traces_erase`
removes what would keep or bring back its text:

- the conversation turn it was extracted from is redacted (text replaced by REDACTED,
  embedding dropped, marked as never to be extracted or consolidated again), so a later
  `memory_extract_pending --retry-failed` or consolidation cannot learn it again; a fact
  distilled by consolidation came from a whole batch of turns: they keep their text
  (erase the session to remove it) but none of them is extracted again;
- the tool call an automatic error item was recorded from loses its error text;
- the discovery finding it was approved from is redacted and kept as rejected (only
  its fingerprint stays, so a re-scan does not propose it again);
- its earlier versions (memory/versions.py) and the items it replaced go with it, so
  nothing older becomes current; the turns those versions were learned from are redacted
  too (`memory_version_erase` erases one version alone);
- a "Retracted: ..." tombstone that quotes it (from before versions) is erased too;
- reconciled pairs, finished task records quoting it, admin log lines showing it;
- the graph forgets it: no entity or relation names it as a source any more.

`memory_erase_user` erases everything the memory holds about a user, in short transactions
(chunks of rows, so a large memory never holds the write lock for long): items, turns,
sessions, tool calls, discovery findings, their part of shared skills (skills'
`contributions_erase`), the profile cache, LLM counters, reconciled pairs, queued task
payloads and task records naming their rows, admin log lines, their graph (entities,
aliases, relations), their webhook endpoints and
every webhook event about them (their app's endpoints are then sent `user.erased`). The
account, its API tokens and its settings stay.

Both announce the removed item ids through `memory.changes.items_changed` (every
process's vector index drops them), delete the user's index snapshots on disk
(`retrieval.snapshots`) once committed, and end with `storage.purge_after_commit` (SQLite:
full-text segments merged, WAL checkpointed). On PostgreSQL the bytes of erased rows leave
the data files only when an operator runs `reclaim` (manage.py memory_reclaim).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q

from accounts.models import ApiToken
from accounts.people import person_delete
from conversations.changes import turns_changed
from conversations.models import Session, ToolCall, Turn
from conversations.services.extraction import turns_batch_extraction_skip
from conversations.services.redaction import tool_call_redact, turns_redact
from core.chunks import repeat_in_chunks, retrying
from core.erasing import erasure_hold
from discovery.models import Finding
from graph.models import Entity, Relation
from graph.services import graph_forget_items
from learning.models import LLMCounter, ProfileCache, ReconciledPair
from memory import notify
from memory.changes import items_changed
from memory.lineage import RETRACTED_PREFIX
from memory.models import ImportJob, ImportLink, ImportPart, KnowledgeItem, MemoryVersion
from memory.versions import replaced_items
from privacy import storage
from privacy.task_records import Subjects, task_records_erase, tasks_erase
from retrieval.snapshots import snapshots_erase
from skills.models import Skill, SkillContribution, SkillWord
from skills.services import contributions_erase
from webhooks.services import user_webhooks_erase

REDACTED = "[erased]"
_CHUNK = 500
ERASE_CHUNK, ERASE_CHUNK_MAX = 200, 1000  # rows per write transaction of a whole erase


def _admin_log_erase(model: type, ids: list[int]) -> int:
    """Admin history lines of these objects (their titles can show the erased text)."""
    content_type = ContentType.objects.get_for_model(model)
    removed = 0
    for start in range(0, len(ids), _CHUNK):
        chunk = [str(pk) for pk in ids[start : start + _CHUNK]]
        lines = LogEntry.objects.filter(content_type=content_type, object_id__in=chunk)
        removed += lines.delete()[0]
    return removed


def _turn_erase(user: Any, source: str, turn_id: int | None) -> None:
    """The turn a text was learned from: redacted, or (consolidation) left unlearned."""
    if turn_id and source == "consolidation":
        turns_batch_extraction_skip(user=user, turn_id=turn_id)
    elif turn_id:
        turns_redact(user=user, turn_ids=[turn_id], text=REDACTED)


def item_traces_erase(*, user: Any, item: KnowledgeItem) -> list[int]:
    """Remove what keeps or could restore `item`'s text (see the module docstring).

    Called by memory_erase inside its transaction, before the row is deleted. Returns
    the ids of further items it deleted (a tombstone quoting the item).
    """
    removed: list[int] = []
    tombstone = item.superseded_by
    if (
        tombstone is not None
        and tombstone.forgotten_at is not None
        and tombstone.content.startswith(RETRACTED_PREFIX)
        and item.content[:200] in tombstone.content
    ):
        KnowledgeItem.objects.filter(pk=item.pk).update(superseded_by=None)
        removed.append(tombstone.pk)  # before delete(), which clears the instance's pk
        tombstone.delete()
    _turn_erase(user, item.source, item.source_turn_id)
    for version in MemoryVersion.objects.for_user(user).filter(item=item):
        _turn_erase(user, version.source, version.source_turn_id)
    tool_call_id = (item.metadata or {}).get("tool_call_id")
    if item.source == "error_auto" and isinstance(tool_call_id, int):
        tool_call_redact(user=user, tool_call_id=tool_call_id, text=REDACTED)
    Finding.objects.for_user(user).filter(knowledge=item).update(
        content=REDACTED, entity="", status="rejected", knowledge=None
    )
    ReconciledPair.objects.for_user(user).filter(Q(low=item.pk) | Q(high=item.pk)).delete()
    task_records_erase(Subjects(item={item.pk, *removed}))
    _admin_log_erase(KnowledgeItem, [item.pk, *removed])
    return removed


def _scope(user: Any) -> dict[str, Any]:
    return {
        "knowledge": KnowledgeItem.objects.for_user(user),
        "turns": Turn.objects.for_user(user),
        "sessions": Session.objects.for_user(user),
        "tool_calls": ToolCall.objects.for_user(user),
        "findings": Finding.objects.for_user(user),
        "reconciled_pairs": ReconciledPair.objects.for_user(user),
        "llm_counters": LLMCounter.objects.filter(owner_id=user.pk),
        "profile": ProfileCache.objects.filter(owner_id=user.pk),
        "imports": ImportJob.objects.for_user(user),
        "skill_contributions": SkillContribution.objects.for_user(user),
        "skill_words": SkillWord.objects.for_user(user),
        "entities": Entity.objects.for_user(user),
        "relations": Relation.objects.for_user(user),
    }


_MODELS = {
    "knowledge": KnowledgeItem,
    "turns": Turn,
    "sessions": Session,
    "tool_calls": ToolCall,
    "findings": Finding,
}


def _erase_chunk(user: Any, name: str, size: int, erased: list[int]) -> int:
    """Delete up to `size` of the user's rows of one kind, with their admin history lines,
    inside the caller's transaction; announce removed items and turns. Returns how many."""
    ids = list(_scope(user)[name].order_by("pk").values_list("pk", flat=True)[:size])
    if not ids:
        return 0
    model = _MODELS[name]
    if name == "knowledge":  # references first: no per-row SET NULL bookkeeping
        KnowledgeItem.objects.filter(pk__in=ids).update(superseded_by=None, source_turn=None)
    model.objects.filter(pk__in=ids).delete()
    _admin_log_erase(model, ids)
    if name == "knowledge":
        items_changed(user.pk, removed=ids)
    elif name == "turns":
        turns_changed(user.pk, removed=ids)
    erased.extend(ids)
    return len(ids)


def _imports_erase(user: Any) -> int:
    """Delete the user's imports first: a running one stops at its next chunk, before
    the rows it stored are erased. Their file parts and links go in chunks."""
    ImportJob.objects.for_user(user).update(status="failed", error="Erased.", heartbeat=None)
    for model, first, most in ((ImportLink, 1000, 5000), (ImportPart, 2, 10)):

        def step(size: int, model: Any = model) -> int:
            mine = model.objects.filter(job__owner_id=user.pk)
            ids = list(mine.values_list("pk", flat=True)[:size])
            return model.objects.filter(pk__in=ids).delete()[0] if ids else 0

        repeat_in_chunks(step, first=first, most=most)
    with transaction.atomic():
        return ImportJob.objects.for_user(user).delete()[1].get(ImportJob._meta.label, 0)


def _raced(error: DatabaseError) -> bool:
    """A chunk's delete met a row a write in flight added meanwhile, pointing at a row the
    chunk deletes (a turn in a session being deleted): tried again, the chunk deletes it
    too. The last unit, with the account row locked, waits for such writes instead."""
    return isinstance(error, IntegrityError)


def _erase_rows(user: Any, counts: dict[str, int], ids: dict[str, list[int]]) -> None:
    """One pass over everything of `user` (see memory_erase_user); adds to `counts`."""

    def add(name: str, value: int) -> None:
        counts[name] = counts.get(name, 0) + value

    add("imports", _imports_erase(user))
    skills = contributions_erase(user=user)  # before the sessions and data it scrubs with
    for name, value in skills.counts.items():
        add(name, value)
    _admin_log_erase(Skill, skills.deleted_skills)
    # Findings first: they point at items.
    for name in ("findings", "knowledge", "tool_calls", "turns", "sessions"):
        add(
            name,
            repeat_in_chunks(
                lambda size, name=name: _erase_chunk(user, name, size, ids[name]),
                first=ERASE_CHUNK,
                most=ERASE_CHUNK_MAX,
                also=_raced,
            ),
        )
    scope = _scope(user)
    with transaction.atomic():
        # One more bump, whatever was found: every process's cached index starts over.
        items_changed(user.pk)
        turns_changed(user.pk)
        for name in ("reconciled_pairs", "llm_counters", "profile"):
            add(name, scope[name].delete()[0])
        add("relations", scope["relations"].count())
        add("entities", scope["entities"].count())
        scope["entities"].delete()  # their aliases, mentions and relations with them (graph)
        subjects = Subjects(
            user={user.pk},
            turn=set(ids["turns"]),
            session=set(ids["sessions"]),
            item=set(ids["knowledge"]),
        )
        for name, value in tasks_erase(subjects).items():
            add(name, value)


def memory_erase_user(
    *,
    user: Any,
    dry_run: bool = False,
    then: Callable[[], dict[str, int]] | None = None,
) -> dict[str, int]:
    """Erase everything the memory holds about `user`; returns what was (or, with
    `dry_run`, would be) erased, by kind. Cannot be undone.

    From its start the person's new writes are refused (core.erasing: a retryable 503).
    Rows go in chunks, each its own short transaction (`core.chunks`), so erasing a
    large memory never holds the write lock for long. Then one last unit sweeps again,
    with the person's account row locked (PostgreSQL; SQLite's write lock does the same):
    it waits for writes already under way, erases what they stored, tells their webhooks,
    and runs `then` (the account delete of an app's person), so nothing written
    meanwhile outlives the erase. Interrupted, running it again erases the rest.
    """
    if dry_run:
        return {name: qs.count() for name, qs in _scope(user).items()}
    ids: dict[str, list[int]] = {name: [] for name in _MODELS}
    counts: dict[str, int] = {}
    user_id = user.pk  # `then` may delete the account (and clear the instance's pk)
    with erasure_hold(user):
        _erase_rows(user, counts, ids)
        before = dict(counts), {name: list(found) for name, found in ids.items()}

        def last_unit() -> None:
            counts.clear()  # a unit tried again counts once
            counts.update(before[0])
            ids.update({name: list(found) for name, found in before[1].items()})
            with transaction.atomic():
                people = get_user_model().objects.select_for_update().filter(pk=user.pk)
                list(people.values("pk"))
                _erase_rows(user, counts, ids)
                # Their endpoints and every event about them go; their app is told.
                user_webhooks_erase(user=user, erased=dict(counts))
                if then is not None:
                    counts.update(then())

        retrying(last_unit, what=f"the last unit of the erase of user {user_id}")
    with transaction.atomic():  # after the last delete (see storage.purge_after_commit)
        storage.purge_after_commit()
        transaction.on_commit(lambda: snapshots_erase(user_id))  # their vectors on disk
    return counts


def app_person_erase(*, app: Any, person: Any) -> dict[str, int]:
    """Erase everything of an app's person and then their account (tokens, agents,
    settings) in the erase's last unit, so no write of theirs outlives it; returns what
    went, by kind."""

    def account() -> dict[str, int]:
        tokens = ApiToken.objects.for_user(person.user).count()
        person_delete(app=app, person=person)
        return {"tokens": tokens, "account": 1}

    return memory_erase_user(user=person.user, then=account)


def memory_erase(*, user: Any, item_id: int) -> None:
    """Hard delete: the row, its versions, its full-text entry (trigger / generated
    column) and vector, and its traces: source turns redacted, tombstone, task records
    (see item_traces_erase). Nothing comes back by itself: erasing the current item also
    erases the items it replaced; erasing a replaced item links what it replaced to the
    item that replaced it."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_related("superseded_by").get(pk=item_id)
        if item.superseded_by_id is None:
            erased = [*replaced_items(user=user, item_id=item.pk), item]
        else:
            erased = [item]
            KnowledgeItem.objects.for_user(user).filter(superseded_by=item).update(
                superseded_by=item.superseded_by_id
            )
        also: list[int] = []
        for row in erased:
            also.extend(item_traces_erase(user=user, item=row))
        ids = [row.pk for row in erased]
        KnowledgeItem.objects.for_user(user).filter(pk__in=ids).update(superseded_by=None)
        KnowledgeItem.objects.for_user(user).filter(pk__in=ids).delete()
        items_changed(user.pk, removed=[*ids, *also])
        graph_forget_items(user=user, item_ids=[*ids, *also])
        notify.items_erased(user=user, item_ids=[*ids, *also])
        # Only now: a merge before the delete keeps the words behind a delete marker.
        storage.purge_after_commit()
        # The owner's index snapshots hold the vector: gone, rebuilt on the next recall.
        transaction.on_commit(lambda: snapshots_erase(user.pk))


def memory_version_erase(*, user: Any, item_id: int, version_id: int) -> None:
    """Hard delete of one earlier version of an item: its text, and the turn it was
    learned from. The item and its other versions stay as they are."""
    with transaction.atomic():
        version = MemoryVersion.objects.for_user(user).get(pk=version_id, item_id=item_id)
        _turn_erase(user, version.source, version.source_turn_id)
        version.delete()
        # The text was the item's once: the full-text index may still hold its words.
        storage.purge_after_commit()


@dataclass
class ResetResult:
    erased_items: int
    cleared_findings: int


def discovery_reset(*, user: Any, dry_run: bool = False) -> ResetResult:
    """Erase every discovery-sourced knowledge item of `user` (hard delete) and clear all
    their findings, so a later scan starts from scratch. Allowed without consent."""
    items = KnowledgeItem.objects.for_user(user).filter(source="discovery")
    findings = Finding.objects.for_user(user)
    if dry_run:
        return ResetResult(items.count(), findings.count())
    with transaction.atomic():
        ids = list(items.values_list("pk", flat=True))
        for item_id in ids:
            memory_erase(user=user, item_id=item_id)
        cleared, _ = findings.delete()
    return ResetResult(len(ids), cleared)
