"""The one write path for knowledge: API, web, admin, commands and tasks all call these.

Each service takes the acting `user` and reaches rows only through `for_user`, so an id
of another user's item behaves exactly like a missing one (`KnowledgeItem.DoesNotExist`).
"""

import inspect
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Least
from django.utils import timezone

from accounts.agents import context_default, own_agent
from accounts.models import ApiToken
from accounts.services import user_settings_get, user_zone
from conversations.models import Turn
from core.chunks import write_in_chunks
from core.jsonsafe import check_json
from core.ownership import own_row
from core.validation import (
    clean_confidence,
    clean_short,
    clean_text,
    parse_duration,
    parse_when,
    refuse_credentials,
)
from memory import notify, versions
from memory.batch_store import items_store
from memory.models import (
    CATEGORIES,
    CONTENT_MAX,
    PRIVILEGED_CATEGORIES,
    SESSION_ENTITY,
    SOURCE_CONFIDENCE,
    KnowledgeItem,
)
from retrieval import events
from retrieval.documents import item_text
from retrieval.embedding.ahead import embedded_ahead

AUTOMATIC_SOURCES = {"llm_extract", "consolidation", "error_auto", "discovery"}
UPDATABLE = (
    "content",
    "category",
    "domain",
    "context",
    "entity",
    "sensitive",
    "confidence",
    "importance",
    "pinned",
    "metadata",
    "due_at",
    "reminded_at",
)
CATEGORY_IMPORTANCE = {
    "profile": 1.0,
    "permission": 1.0,
    "system": 0.9,
    "preference": 0.8,
    "error": 0.7,
    "skill": 0.7,
    "fact": 0.6,
    "reminder": 0.6,
    "note": 0.4,
}
RECALL_CONFIDENCE_BUMP = 0.02
BATCH_CHUNK, BATCH_CHUNK_MAX = 100, 500  # rows per write transaction of a batch


def _clean_category(category: Any, source: str) -> str:
    category = (category or "fact").strip().lower() if isinstance(category, str) else category
    if category not in CATEGORIES + PRIVILEGED_CATEGORIES:
        raise ValidationError(
            {"category": f"Unknown category. Use one of: {', '.join(CATEGORIES)}."},
            code="invalid",
        )
    if category in PRIVILEGED_CATEGORIES and source in AUTOMATIC_SOURCES:
        raise ValidationError(
            {"category": f"'{category}' is privileged: automatic sources may not write it."},
            code="privileged",
        )
    return category


def _clean_metadata(value: Any) -> dict:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise ValidationError({"metadata": "Must be a JSON object."}, code="invalid")
    try:
        check_json(value)
    except ValueError as error:
        raise ValidationError({"metadata": str(error)}, code="invalid") from None
    return value


def _clean_fields(user: Any, fields: dict[str, Any], *, source: str) -> dict[str, Any]:
    """Validate and normalise the given subset of item fields."""
    cleaned: dict[str, Any] = {}
    if "content" in fields:
        cleaned["content"] = clean_text(fields["content"], field="content", limit=CONTENT_MAX)
        refuse_credentials(cleaned["content"])
    if "category" in fields:
        cleaned["category"] = _clean_category(fields["category"], source)
    for name, limit, default in (
        ("domain", 100, ""),
        ("context", 100, "global"),
        ("entity", 200, ""),
    ):
        if name in fields:
            cleaned[name] = clean_short(fields[name], field=name, limit=limit, default=default)
            if name == "entity":
                cleaned[name] = cleaned[name].lower()
    if "sensitive" in fields:
        cleaned["sensitive"] = bool(fields["sensitive"])
    if "pinned" in fields:
        cleaned["pinned"] = bool(fields["pinned"])
    if "importance" in fields and fields["importance"] is not None:
        cleaned["importance"] = clean_confidence(fields["importance"], default=0.5)
    if "confidence" in fields and fields["confidence"] is not None:
        cleaned["confidence"] = clean_confidence(fields["confidence"], default=0.5)
    if "metadata" in fields:
        cleaned["metadata"] = _clean_metadata(fields["metadata"])
    if "due_at" in fields:
        cleaned["due_at"] = parse_when(fields["due_at"], field="due_at", tz=user_zone(user))
    if "reminded_at" in fields:
        value = fields["reminded_at"]
        cleaned["reminded_at"] = (
            timezone.now()
            if isinstance(value, str) and value.strip().lower() == "now"
            else parse_when(value, field="reminded_at", tz=user_zone(user))
        )
    return cleaned


def default_importance(category: str, source: str) -> float:
    """What an item matters on its own when nobody rated it: identity and permissions
    first, then preferences, what a person said themselves, then the rest; automatic
    sources a step lower than the same category told directly."""
    base = CATEGORY_IMPORTANCE.get(category, 0.5)
    return round(base if source in ("user", "tool") else base * 0.8, 3)


def _check_enabled(user: Any, source: str) -> None:
    if source != "user" and not user_settings_get(user).memory_enabled:
        raise ValidationError(
            "Memory is turned off for this user (web app: Settings).", code="memory_disabled"
        )


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
        events.items_changed(user.pk, upserted=[item.pk])
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
        _check_enabled(user, source)
    token = arguments.get("token")
    if not isinstance(token, ApiToken) or token.owner_id != user.pk:
        token = None  # only ever the caller's own
    agent = own_agent(user, arguments["agent"] or getattr(token, "agent_id", None))
    turn = _own_turn(user, arguments["source_turn"])
    names = ("content", "category", "domain", "context", "entity", "sensitive", "metadata")
    given = {n: arguments[n] for n in (*names, "due_at", "pinned")}
    if not given["context"]:
        given["context"] = context_default(agent)
    row = _clean_fields(user, given, source=source)
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
    existing item or an earlier entry), written in bulk and embedded in batches on
    commit. A bad entry raises ValidationError naming its index, and nothing is stored.
    The rows are written in chunks, each its own short transaction (`core.chunks`), so a
    large batch never holds the write lock for long.
    """
    rows: list[dict[str, Any]] = []
    for index, entry in enumerate(items):
        if not isinstance(entry, dict):
            raise ValidationError({str(index): "Each entry must be an object."})
        try:
            bound = _CREATE_ARGUMENTS.bind(
                user=user, source=source, agent=agent, token=token, **entry
            )
            bound.apply_defaults()
            # Memory being off refuses the first entry; the setting is read once.
            rows.append(_new_row(user, bound.arguments, check_enabled=not rows))
        except ValidationError as error:
            raise ValidationError({str(index): error.messages}) from error
        except TypeError as error:
            raise ValidationError({str(index): f"Unknown field: {error}"}) from error

    def store(chunk: list[dict[str, Any]]) -> list[KnowledgeItem]:
        stored = items_store(user=user, rows=chunk)
        if stored:
            events.items_changed(user.pk, upserted=list(dict.fromkeys(i.pk for i in stored)))
            notify.items_written(user=user, items=stored)
        return stored

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
    cleaned = _clean_fields(user, changes, source=source)
    texts = [item_text(content=cleaned["content"])] if "content" in cleaned else []
    with embedded_ahead(texts), transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        _revise(item, cleaned, source=source, token=token, reason=reason)
        events.items_changed(user.pk, upserted=[item.pk])
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
    item.updated_at = timezone.now()
    if versions.says_other(before, item):
        versions.version_keep(
            before, change_source=source, token=token, reason=reason, agent_id=agent_id
        )
    item.save()


def memory_decay_confidence(
    *, user: Any, item_ids: Iterable[int], factor: float, idle_before: datetime
) -> int:
    """Multiply confidence by `factor` once per idle period (background decay).

    Only items still unused, unchanged and undecayed since `idle_before` are touched, so
    a second run in the same period changes nothing. `updated_at` is left alone: decay
    is not an edit.
    """
    idle = (
        (Q(last_used__isnull=True) | Q(last_used__lt=idle_before))
        & Q(updated_at__lt=idle_before)
        & (Q(decayed_at__isnull=True) | Q(decayed_at__lt=idle_before))
    )
    return (
        KnowledgeItem.objects.for_user(user)
        .filter(idle, pk__in=list(item_ids))
        .update(confidence=F("confidence") * factor, decayed_at=timezone.now())
    )


def memory_forget(*, user: Any, item_id: int) -> KnowledgeItem:
    """Soft delete: hidden everywhere at once, restorable."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        if item.forgotten_at is None:
            item.forgotten_at = timezone.now()
            item.save(update_fields=["forgotten_at"])
            events.items_changed(user.pk, removed=[item.pk])
            notify.item_changed(user=user, kind="memory.forgotten", item=item, reason="forgotten")
    return item


def memory_restore(*, user: Any, item_id: int) -> KnowledgeItem:
    """Undo a forget; the item comes back exactly as it was."""
    with transaction.atomic():
        item = KnowledgeItem.objects.for_user(user).select_for_update().get(pk=item_id)
        if item.forgotten_at is not None:
            item.forgotten_at = None
            item.save(update_fields=["forgotten_at"])
            events.items_changed(user.pk, upserted=[item.pk])
            notify.item_changed(user=user, kind="memory.updated", item=item, restored=True)
    return item


def memory_forget_bulk(
    *,
    user: Any,
    context: str | None = None,
    older_than: str | None = None,
    categories: Iterable[str] | None = None,
    dry_run: bool = False,
) -> int:
    """Soft-forget active items matching every given filter; returns how many."""
    if not context and not older_than and not categories:
        raise ValidationError("Give at least one of context, older_than, categories.", code="empty")
    qs = KnowledgeItem.objects.for_user(user).filter(forgotten_at__isnull=True)
    if context:
        qs = qs.filter(context=context)
    if older_than:
        qs = qs.filter(created_at__lt=timezone.now() - parse_duration(older_than))
    if categories:
        categories = list(categories)
        bad = [c for c in categories if c not in CATEGORIES + PRIVILEGED_CATEGORIES]
        if bad:
            raise ValidationError({"categories": f"Unknown: {', '.join(map(str, bad))}."})
        qs = qs.filter(category__in=categories)
    if dry_run:
        return qs.count()
    with transaction.atomic():
        ids = list(qs.values_list("pk", flat=True))
        KnowledgeItem.objects.filter(pk__in=ids).update(forgotten_at=timezone.now())
        if ids:
            events.items_changed(user.pk, removed=ids)
            notify.items_forgotten(user=user, item_ids=ids, reason="forgotten")
    return len(ids)


def memory_touch(*, user: Any, item_ids: Iterable[int], when: datetime | None = None) -> int:
    """Recall side effects in one query: confidence +0.02 (max 1), use_count +1, last_used."""
    ids = list(item_ids)
    if not ids:
        return 0
    return (
        KnowledgeItem.objects.for_user(user)
        .filter(pk__in=ids)
        .update(
            confidence=Least(F("confidence") + RECALL_CONFIDENCE_BUMP, Value(1.0)),
            use_count=F("use_count") + 1,
            last_used=when or timezone.now(),
        )
    )


def memory_seen(*, user: Any, item_ids: Iterable[int], when: datetime | None = None) -> int:
    """Items shown to an agent (system prompt, per-turn context, profile) count as used
    for decay: `last_used` moves to now, at most once a day per item, in one query."""
    ids = list(item_ids)
    if not ids:
        return 0
    now = when or timezone.now()
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return (
        KnowledgeItem.objects.for_user(user)
        .filter(pk__in=ids)
        .filter(Q(last_used__isnull=True) | Q(last_used__lt=day_start))
        .update(last_used=now)
    )
