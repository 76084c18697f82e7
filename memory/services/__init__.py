"""The one write path for knowledge: API, web, admin, commands and tasks all call these.

Each service takes the acting `user` and reaches rows only through `for_user`, so an id
of another user's item behaves exactly like a missing one (`KnowledgeItem.DoesNotExist`).

Storing and changing items is here; by sub-domain beside it: `fields` (what an item's
fields may hold), `forgetting` (forget and restore) and `usage` (recall's side effects,
decay). Every service is imported from here.
"""

import inspect
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.agents import context_default, own_agent
from accounts.models import ApiToken
from conversations.models import Turn
from core.chunks import write_in_chunks
from core.entries import clean_entries
from core.ownership import own_row
from core.validation import clean_confidence
from memory import notify, versions
from memory.batch_store import items_store
from memory.changes import items_changed
from memory.models import SESSION_ENTITY, SOURCE_CONFIDENCE, KnowledgeItem
from memory.services.dating import memory_date
from memory.services.fields import (
    AUTOMATIC_SOURCES,
    CATEGORY_IMPORTANCE,
    UPDATABLE,
    check_memory_enabled,
    clean_fields,
    default_importance,
)
from memory.services.forgetting import (
    memory_forget,
    memory_forget_bulk,
    memory_forget_matching,
    memory_restore,
)
from memory.services.usage import (
    RECALL_CONFIDENCE_BUMP,
    memory_decay_confidence,
    memory_seen,
    memory_touch,
    usage_add,
)
from retrieval.documents import item_text
from retrieval.embedding.ahead import embedded_ahead

__all__ = [
    "AUTOMATIC_SOURCES",
    "BATCH_CHUNK",
    "BATCH_CHUNK_MAX",
    "CATEGORY_IMPORTANCE",
    "RECALL_CONFIDENCE_BUMP",
    "UPDATABLE",
    "default_importance",
    "memory_create",
    "memory_create_many",
    "memory_date",
    "memory_decay_confidence",
    "memory_forget",
    "memory_forget_bulk",
    "memory_forget_matching",
    "memory_get",
    "memory_restore",
    "memory_seen",
    "memory_session_note",
    "memory_touch",
    "usage_add",
    "memory_update",
]

BATCH_CHUNK, BATCH_CHUNK_MAX = 100, 500  # rows per write transaction of a batch


def memory_create(
    *,
    user: Any,
    content: str,
    category: str = "fact",
    domain: str = "",
    context: str | None = None,
    entity: str = "",
    sensitive: bool = False,
    source: str = "tool",
    confidence: float | None = None,
    metadata: dict | None = None,
    due_at: Any = None,
    source_turn: Any = None,
    pinned: bool = False,
    importance: float | None = None,
    agent: Any = None,
    token: ApiToken | None = None,
) -> KnowledgeItem:
    """Store one item, or fold it into the active item of its scope that says the same
    thing (memory/dedup.py).

    `agent` (the writer's Agent or its id; by default the agent of `token`, the API
    token written through) is recorded with a new item, and with the version a fold
    keeps; an item learned from a turn takes that turn's agent. With no `context`, the
    item goes to the agent's default context (global without an agent). The returned
    item has `outcome`: "deduplicated" (an existing row was updated; it keeps its own
    agent, and `deduplicated` is True), "conflict" (stored, and linked by
    `conflicts_with` to an item sharing most of its words that says something else, for
    reconciliation to judge) or "new".
    """
    arguments = {
        "content": content,
        "category": category,
        "domain": domain,
        "context": context,
        "entity": entity,
        "sensitive": sensitive,
        "source": source,
        "confidence": confidence,
        "metadata": metadata,
        "due_at": due_at,
        "source_turn": source_turn,
        "pinned": pinned,
        "importance": importance,
        "agent": agent,
        "token": token,
    }
    return _store_one(user, _new_row(user, arguments, check_enabled=True))


def _store_one(user: Any, row: dict[str, Any]) -> KnowledgeItem:
    with embedded_ahead([item_text(content=row["content"])]), transaction.atomic():
        [item] = items_store(user=user, rows=[row])
        items_changed(user.pk, upserted=[item.pk])
        notify.items_written(user=user, items=[item])
    return item


def memory_session_note(
    *,
    user: Any,
    session_id: str,
    content: str,
    context: str,
    source_turn: Any,
    first: date,
    last: date,
) -> KnowledgeItem:
    """Store the diary note of one conversation (consolidation): category note, entity
    `session:<session_id>`, the session's dates in its metadata (`session_date`, the
    first day; `session_until`, the last). It is stored on its own: never folded into
    another item or linked with one, so no session's note changes another's, and it
    links only `source_turn` (a turn of that session)."""
    bound = _CREATE_ARGUMENTS.bind(
        user=user,
        content=content,
        category="note",
        context=context,
        entity=f"{SESSION_ENTITY}{session_id}"[:200],
        source="consolidation",
        source_turn=source_turn,
        metadata={
            "session_id": session_id,
            "session_date": first.isoformat(),
            "session_until": last.isoformat(),
        },
    )
    bound.apply_defaults()
    row = _new_row(user, bound.arguments, check_enabled=True)
    return _store_one(user, {**row, "alone": True})


_CREATE_ARGUMENTS = inspect.signature(memory_create)


def _own_turn(user: Any, turn: Any) -> Turn | None:
    """The caller's turn an item was learned from (a Turn or its id); any other is unknown."""
    return own_row(user, Turn, turn, field="source_turn")


def _new_row(user: Any, arguments: dict[str, Any], *, check_enabled: bool) -> dict[str, Any]:
    """The validated row `memory_create(**arguments)` stores (with source, source_turn)."""
    source = arguments["source"]
    if source not in SOURCE_CONFIDENCE:
        raise ValidationError({"source": "Unknown source."}, code="invalid")
    if check_enabled:
        check_memory_enabled(user, source)
    token = arguments.get("token")
    if not isinstance(token, ApiToken) or token.owner_id != user.pk:
        token = None  # only ever the caller's own
    agent = own_agent(user, arguments["agent"] or getattr(token, "agent_id", None))
    turn = _own_turn(user, arguments["source_turn"])
    names = ("content", "category", "domain", "context", "entity", "sensitive", "metadata")
    given = {n: arguments[n] for n in (*names, "due_at", "pinned")}
    if not given["context"]:
        given["context"] = context_default(agent)
    row = clean_fields(user, given, source=source)
    row["confidence"] = clean_confidence(arguments["confidence"], default=SOURCE_CONFIDENCE[source])
    row["importance"] = clean_confidence(
        arguments["importance"], default=default_importance(row["category"], source)
    )
    agent_id = agent.pk if agent is not None else (turn.agent_id if turn is not None else None)
    return {**row, "source": source, "source_turn": turn, "agent_id": agent_id, "token": token}


def memory_create_many(
    *,
    user: Any,
    items: list[dict[str, Any]],
    source: str = "tool",
    agent: Any = None,
    token: ApiToken | None = None,
) -> list[KnowledgeItem]:
    """Store several items in order: every entry is validated before anything is stored.

    The outcome is that of one `memory_create` per entry (each entry may fold into an
    existing item or an earlier entry), written in bulk; the entries are embedded in one
    batch before anything is written. A bad entry raises ValidationError naming its index,
    and nothing is stored. The rows are written in chunks, each its own short transaction
    (`core.chunks`), so a large batch never holds the write lock for long.
    """

    def clean(index: int, entry: dict[str, Any]) -> dict[str, Any]:
        bound = _CREATE_ARGUMENTS.bind(user=user, source=source, agent=agent, token=token, **entry)
        bound.apply_defaults()
        # Memory being off refuses the first entry; the setting is read once.
        return _new_row(user, bound.arguments, check_enabled=index == 0)

    rows = clean_entries(items, clean)

    def store(chunk: list[dict[str, Any]]) -> list[KnowledgeItem]:
        stored = items_store(user=user, rows=chunk)
        if stored:
            items_changed(user.pk, upserted=list(dict.fromkeys(i.pk for i in stored)))
            notify.items_written(user=user, items=stored)
        return stored

    # Embedded before any transaction (the embedder's batched rate, no lock held): the
    # vectors find each entry's near-duplicates (`dedup.candidates_for`) and are stored
    # with the rows.
    with embedded_ahead([item_text(content=row["content"]) for row in rows]):
        return write_in_chunks(rows, store, first=BATCH_CHUNK, most=BATCH_CHUNK_MAX)


def memory_get(*, user: Any, item_id: int) -> KnowledgeItem:
    return KnowledgeItem.objects.for_user(user).get(pk=item_id)


def memory_update(
    *,
    user: Any,
    item_id: int,
    source: str = "tool",
    token: ApiToken | None = None,
    reason: str = "",
    **changes: Any,
) -> KnowledgeItem:
    """Change only the given fields (update_memory). `reminded_at="now"` is accepted.

    A change of what the item says (content, category, domain, context, entity) keeps
    the earlier state as a version (memory/versions.py) written by `source` through
    `token` for `reason`. Changing content clears the stored embedding so the item is
    embedded again.
    """
    unknown = set(changes) - set(UPDATABLE)
    if unknown:
        raise ValidationError({name: "This field cannot be changed." for name in sorted(unknown)})
    if not changes:
        raise ValidationError("Nothing to update: give at least one field.", code="empty")
    cleaned = clean_fields(user, changes, source=source)
    texts = [item_text(content=cleaned["content"])] if "content" in cleaned else []
    with embedded_ahead(texts), transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        _revise(item, cleaned, source=source, token=token, reason=reason)
        items_changed(user.pk, upserted=[item.pk])
        notify.item_changed(user=user, kind="memory.updated", item=item)
    return item


def _revise(
    item: KnowledgeItem,
    cleaned: dict[str, Any],
    *,
    source: str,
    token: ApiToken | None = None,
    reason: str = "",
    agent_id: int | None = None,
) -> None:
    """Apply cleaned fields to a locked item and save it, keeping a version when it now
    says something else (written by `agent_id`, else the token's agent)."""
    before = versions.snapshot(item)
    for name, value in cleaned.items():
        setattr(item, name, value)
    if item.content != before.content:
        item.embedding = None
        item.embedding_model = ""
        item.tokens = None
        item.tokens_model = ""
    item.updated_at = timezone.now()
    if versions.says_other(before, item):
        versions.version_keep(
            before, change_source=source, token=token, reason=reason, agent_id=agent_id
        )
    item.save()
