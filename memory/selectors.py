"""Read-only views of one user's memory: stats, entities, contexts, activity."""

from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Count, F, Max, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from conversations.models import Session, ToolCall, Turn
from graph.selectors import filter_keys
from memory.models import USAGE_KINDS, ImportJob, KnowledgeItem, UsageDay
from memory.versions import current_item
from retrieval.embedding import current_model_id


def _counts(qs, field: str) -> dict[str, int]:
    rows = qs.values(field).annotate(n=Count("pk")).order_by("-n", field)
    return {row[field] or "": row["n"] for row in rows}


def memory_stats(*, user: Any, embedding_model: str | None = None) -> dict[str, Any]:
    """Counts of everything the user has, for the stats API, dashboard and command.

    Embedding coverage counts vectors of `embedding_model` (default: the current model).
    """
    if embedding_model is None:
        embedding_model = current_model_id()
    items = KnowledgeItem.objects.for_user(user)
    active = items.active()
    embedded = active.exclude(embedding__isnull=True)
    if embedding_model:
        embedded = embedded.filter(embedding_model=embedding_model)
    active_count = active.count()
    turns = Turn.objects.for_user(user)
    tool_calls = ToolCall.objects.for_user(user)
    return {
        "knowledge": {
            "active": active_count,
            "forgotten": items.filter(forgotten_at__isnull=False).count(),
            "superseded": items.filter(superseded_by__isnull=False).count(),
            "sensitive": active.filter(sensitive=True).count(),
            "by_category": _counts(active, "category"),
            "by_context": _counts(active, "context"),
            "by_source": _counts(active, "source"),
            "last_updated": _newest(active),
        },
        "conversations": {
            "sessions": Session.objects.for_user(user).count(),
            "turns": turns.count(),
        },
        "tool_calls": {
            "total": tool_calls.count(),
            "failed": tool_calls.filter(success=False).count(),
        },
        "embeddings": {
            "embedded": embedded.count(),
            "coverage": round(embedded.count() / active_count, 4) if active_count else 1.0,
        },
        "usage": usage_stats(user=user),
        "extraction": {
            "pending": turns.filter(extraction_status="pending").count(),
            "failed": turns.filter(extraction_status="failed").count(),
            "done": turns.filter(extraction_status="done").count(),
            # applied with some of the model's operations refused (counted per turn)
            "partial": turns.filter(extraction_status="partial").count(),
            "operations_refused": turns.aggregate(n=Sum("extraction_refused"))["n"] or 0,
            "secrets_masked": turns.aggregate(n=Sum("secrets_masked"))["n"] or 0,
        },
    }


def _newest(items: Any) -> str | None:
    """When the newest change among `items` was made (ISO 8601), None without any."""
    newest = items.aggregate(at=Max("updated_at"))["at"]
    return newest.isoformat() if newest else None


def entities_list(*, user: Any, limit: int = 100) -> list[dict[str, Any]]:
    rows = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .exclude(entity="")
        .values("entity")
        .annotate(count=Count("pk"), last_updated=Max("updated_at"))
        .order_by("-count", "entity")[:limit]
    )
    return list(rows)


def contexts_list(*, user: Any, limit: int = 100) -> list[dict[str, Any]]:
    rows = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .values("context")
        .annotate(count=Count("pk"))
        .order_by("-count", "context")[:limit]
    )
    return list(rows)


def _daily(qs, field: str, since) -> dict[str, int]:
    rows = (
        qs.filter(**{f"{field}__gte": since})
        .annotate(day=TruncDate(field))
        .values("day")
        .annotate(n=Count("pk"))
    )
    return {row["day"].isoformat(): row["n"] for row in rows}


def activity_timeline(*, user: Any, days: int = 30) -> list[dict[str, Any]]:
    """Daily counts of turns, new memories and tool calls, oldest first, no gaps."""
    days = max(1, min(days, 365))
    today = timezone.localdate()  # the same calendar TruncDate uses (current time zone)
    since = timezone.now() - timedelta(days=days)
    turns = _daily(Turn.objects.for_user(user), "timestamp", since)
    memories = _daily(KnowledgeItem.objects.for_user(user), "created_at", since)
    calls = _daily(ToolCall.objects.for_user(user), "timestamp", since)
    out = []
    for offset in range(days - 1, -1, -1):
        day = (today - timedelta(days=offset)).isoformat()
        out.append(
            {
                "date": day,
                "turns": turns.get(day, 0),
                "memories": memories.get(day, 0),
                "tool_calls": calls.get(day, 0),
            }
        )
    return out


ORDERINGS = {
    "created_at",
    "-created_at",
    "updated_at",
    "-updated_at",
    "confidence",
    "-confidence",
    "last_used",
    "-last_used",
    "use_count",
    "-use_count",
    "due_at",
    "-due_at",
}


def memory_list(
    *,
    user: Any,
    category: str | None = None,
    context: str | None = None,
    entity: str | None = None,
    source: str | None = None,
    sensitive: bool | None = None,
    include_superseded: bool = False,
    include_forgotten: bool = False,
    ordering: str = "-updated_at",
    agent: str | None = None,
    matching: Q | None = None,
):
    """The user's items under the listing filters (a queryset, newest change first);
    `agent` keeps what the user's agent of that name stored; `matching` (a condition on
    the items, `memory.item_conditions`) keeps those it selects."""
    items = KnowledgeItem.objects.for_user(user).select_related("agent")
    if matching is not None:
        items = items.filter(matching)
    if agent:
        items = items.filter(agent__name=agent)
    if not include_superseded:
        items = items.filter(superseded_by__isnull=True)
    if not include_forgotten:
        items = items.filter(forgotten_at__isnull=True)
    for name, value in (("category", category), ("context", context), ("source", source)):
        if value:
            items = items.filter(**{name: value})
    if entity:  # the entity and, when the graph knows it, its aliases
        items = items.filter(entity__in=filter_keys(user=user, entity=entity))
    if sensitive is not None:
        items = items.filter(sensitive=sensitive)
    if ordering not in ORDERINGS:
        raise ValidationError({"ordering": f"Use one of: {', '.join(sorted(ORDERINGS))}."})
    return items.order_by(ordering, "-pk")


def memory_visible(
    *, user: Any, item_id: int, current: bool = False, active_only: bool = False
) -> KnowledgeItem:
    """The user's item `item_id` as every door shows it (the API's views, the agent tools,
    mem0's API): a forgotten item is missing until restored, KnowledgeItem.DoesNotExist as
    for a missing id or another person's. `current`: the item that stands for it now (the
    end of its `superseded_by` chain), missing too when that one is forgotten.
    `active_only`: an item another replaced is missing as well (mem0's ids)."""
    item = KnowledgeItem.objects.for_user(user).get(pk=item_id)
    if current:
        item = current_item(user=user, item=_shown(item))
    if active_only and item.superseded_by_id is not None:
        raise KnowledgeItem.DoesNotExist
    return _shown(item)


def _shown(item: KnowledgeItem) -> KnowledgeItem:
    if item.forgotten_at is not None:
        raise KnowledgeItem.DoesNotExist  # forgotten: gone for every door until restored
    return item


def item_owner(*, item_id: int, owner_ids: QuerySet) -> int | None:
    """Which of `owner_ids` (a subquery of accounts) holds item `item_id`, if one does."""
    rows = KnowledgeItem.objects.filter(pk=item_id, owner_id__in=owner_ids)
    return rows.values_list("owner_id", flat=True).first()


def active_counts(*, owner_ids: QuerySet) -> dict[int, int]:
    """owner id -> how many active items each of those accounts holds."""
    rows = KnowledgeItem.objects.filter(owner_id__in=owner_ids).active().values("owner_id")
    return dict(rows.annotate(n=Count("pk")).values_list("owner_id", "n"))


def active_item_agents(*, owner_ids: QuerySet) -> QuerySet:
    """The ids of the agents that stored those accounts' active items (a subquery)."""
    return KnowledgeItem.objects.filter(owner_id__in=owner_ids).active().values("agent_id")


def upcoming_items(*, user: Any, days: int = 7) -> list[KnowledgeItem]:
    """Active items due within `days` or overdue, not yet reminded since they became due.

    An item reminded before its due time comes back once the due time has passed.
    """
    now = timezone.now()
    horizon = now + timedelta(days=max(0, min(days, 366)))
    items = (
        KnowledgeItem.objects.for_user(user)
        .active()
        .filter(due_at__isnull=False, due_at__lte=horizon)
        .filter(Q(reminded_at__isnull=True) | Q(due_at__lte=now, reminded_at__lt=F("due_at")))
        .order_by("due_at")
    )
    return list(items)


def import_jobs_list(*, user: Any) -> Any:
    """The user's imports run by a worker, newest first."""
    return ImportJob.objects.for_user(user).exclude(status="receiving").order_by("-pk")


def import_job_get(*, user: Any, job_id: int) -> ImportJob:
    """One of the user's imports; another user's id is ImportJob.DoesNotExist."""
    return import_jobs_list(user=user).get(pk=job_id)


def import_job_owner_id(job_id: int) -> int | None:
    """Whose import `job_id` is (None for a missing one): for the task given its id."""
    return ImportJob.objects.filter(pk=job_id).values_list("owner_id", flat=True).first()


def items_about(*, user: Any, item_ids: list[int], keys: list[str], limit: int = 50) -> list:
    """The user's active items among `item_ids` or with one of the `entity` strings `keys`
    (an entity's memories: `graph.selectors.entity_item_ids` and `entity_keys`), newest
    first."""
    items = KnowledgeItem.objects.for_user(user).filter(
        forgotten_at__isnull=True, superseded_by__isnull=True
    )
    return list(items.filter(Q(pk__in=item_ids) | Q(entity__in=keys)).order_by("-pk")[:limit])


def items_owned(*, user: Any, item_ids: list[int]) -> set[int]:
    """Which of `item_ids` are the user's items (in any state): a request naming another
    person's id, or a missing one, finds fewer."""
    rows = KnowledgeItem.objects.for_user(user).filter(pk__in=item_ids)
    return set(rows.values_list("pk", flat=True))


USAGE_WEEK = 7  # days of seed 001's "this week"


def usage_stats(*, user: Any, days: int = USAGE_WEEK) -> dict[str, Any]:
    """Seed 001's memory_usage: searches, memories used and skills applied in the last
    `days` days (today included), and per day, oldest first."""
    since = timezone.now().date() - timedelta(days=days - 1)
    rows = UsageDay.objects.for_user(user).filter(day__gte=since)
    totals = dict.fromkeys(USAGE_KINDS, 0)
    per_day: dict[str, dict[str, int]] = {}
    for day, kind, count in rows.order_by("day").values_list("day", "kind", "count"):
        totals[kind] += count
        per_day.setdefault(day.isoformat(), dict.fromkeys(USAGE_KINDS, 0))[kind] = count
    return {
        "days": days,
        **{f"{kind}_this_week": n for kind, n in totals.items()},
        "by_day": per_day,
    }
