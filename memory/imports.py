"""The write path of imports (memory.portability): exported items come back through the
same validation (`services.fields.clean_fields`), dedup (`dedup.find_match`, `dedup.fold`)
and lineage (`superseded_by`) as a write. `memory_import_clean` checks one record and
writes nothing (the whole file is checked before anything is stored);
`memory_import_many` stores a chunk of them inside the importer's transaction.
"""

from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from accounts.services import user_zone
from conversations.models import Turn
from conversations.services.imports import stored_when
from core.jsonsafe import check_json
from core.validation import clean_short
from memory import dedup, notify, versions
from memory.changes import items_changed
from memory.models import PRIVILEGED_CATEGORIES, SOURCE_CONFIDENCE, KnowledgeItem, MemoryVersion
from memory.services.fields import check_memory_enabled, clean_fields

_IMPORT_TIMES = ("created_at", "updated_at", "last_used", "due_at", "reminded_at", "forgotten_at")
_IMPORT_KEY = ("content", "category", "context", "entity", "created_at")
_LINKS = {"superseded_by": KnowledgeItem, "source_turn": Turn}  # ids of the user's rows
_ITEM_FIELDS = (
    "content", "category", "domain", "context", "entity", "sensitive", "confidence",
    "metadata", "due_at", "source", "created_at",
)  # fmt: skip


def memory_import_allowed(*, user: Any, trusted: bool) -> None:
    """Refuse an agent's import while memory is off for the user (a person may import)."""
    check_memory_enabled(user, "user" if trusted else "tool")


def _unit(value: Any, *, field: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValidationError({field: "Must be a number between 0 and 1."}, code="invalid")
    return float(value)


def memory_import_clean(*, user: Any, fields: dict[str, Any], trusted: bool) -> dict[str, Any]:
    """One exported item, validated as `memory_create` validates a write, its trust capped.

    Unless `trusted` (the owner, in the web app), a privileged category is refused and
    the item is stored as a token's write: source "tool" (a file can claim any source:
    `llm_extract`, `discovery`, `error_auto` are the server's own word for what it
    learned), confidence at most 0.7.
    """
    source = fields.get("source") or "tool"
    if not isinstance(source, str) or source not in SOURCE_CONFIDENCE:
        raise ValidationError({"source": "Unknown source."}, code="invalid")
    category = fields.get("category") or "fact"
    if not trusted:
        source = "tool"
        if isinstance(category, str) and category.strip().lower() in PRIVILEGED_CATEGORIES:
            raise ValidationError(
                {"category": f"'{category}' is privileged: only its owner may import it, "
                             "in the web app."},
                code="privileged",
            )  # fmt: skip
    names = {"content", "domain", "context", "entity", "metadata"}
    row = clean_fields(
        user, {"category": category, **{n: fields.get(n) for n in names}}, source=source
    )
    try:
        check_json(row["metadata"])
    except ValueError as error:
        raise ValidationError({"metadata": str(error)}, code="invalid") from None
    sensitive = fields.get("sensitive") or False
    pinned = fields.get("pinned") or False
    if not isinstance(sensitive, bool) or not isinstance(pinned, bool):
        name = "sensitive" if not isinstance(sensitive, bool) else "pinned"
        raise ValidationError({name: "Must be true or false."}, code="invalid")
    use_count = fields.get("use_count") or 0
    if isinstance(use_count, bool) or not isinstance(use_count, int) or not 0 <= use_count < 2**31:
        raise ValidationError({"use_count": "Must be a non-negative integer."}, code="invalid")
    confidence = _unit(
        fields.get("confidence"), field="confidence", default=SOURCE_CONFIDENCE[source]
    )
    tz = user_zone(user)
    times = {name: stored_when(fields.get(name), field=name, tz=tz) for name in _IMPORT_TIMES}
    times["created_at"] = times["created_at"] or timezone.now()
    times["updated_at"] = times["updated_at"] or times["created_at"]
    return {
        **row,
        **times,
        "versions": _clean_versions(user, fields.get("versions"), trusted=trusted, tz=tz),
        "sensitive": sensitive,
        "pinned": pinned,
        "source": source,
        "confidence": confidence if trusted else min(confidence, SOURCE_CONFIDENCE["tool"]),
        "importance": _unit(fields.get("importance"), field="importance", default=1.0),
        "use_count": use_count,
    }


_VERSION_FIELDS = {
    "content", "category", "domain", "context", "entity", "sensitive", "confidence",
    "metadata", "due_at", "source", "created_at", "change_source", "token_name", "reason",
}  # fmt: skip


def _clean_versions(user: Any, value: Any, *, trusted: bool, tz: Any) -> list[dict[str, Any]]:
    """An exported item's earlier versions, each validated like the item itself."""
    if value in (None, []):
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValidationError({"versions": "Must be a list of objects."}, code="invalid")
    cleaned = []
    for given in value:
        unknown = sorted(set(given) - _VERSION_FIELDS)
        if unknown:
            raise ValidationError({"versions": f"Unknown field: {unknown[0]}."}, code="invalid")
        item = memory_import_clean(
            user=user, fields={k: v for k, v in given.items() if k in _ITEM_FIELDS}, trusted=trusted
        )
        change = given.get("change_source") or "tool"
        if change not in SOURCE_CONFIDENCE:
            raise ValidationError({"versions": "Unknown change_source."}, code="invalid")
        cleaned.append(
            {
                **{name: item[name] for name in _ITEM_FIELDS},
                "change_source": change if trusted else "tool",
                "token_name": clean_short(given.get("token_name"), field="token_name", limit=100),
                "reason": clean_short(given.get("reason"), field="reason", limit=300),
            }
        )
    return cleaned


def _versions_add(item: KnowledgeItem, given: list[dict[str, Any]]) -> None:
    """Attach imported versions to `item`, except those it has already (import twice)."""
    have = set(item.versions.values_list("content", "created_at"))
    MemoryVersion.objects.bulk_create(
        MemoryVersion(owner_id=item.owner_id, item=item, **fields)
        for fields in given
        if (fields["content"], fields["created_at"]) not in have
    )


def _leads_to(start: int, target: int, steps: int = 1000) -> bool:
    """Whether the lineage from item `start` (superseded_by, onwards) reaches `target`."""
    current: int | None = start
    while current is not None and steps:
        if current == target:
            return True
        current = (
            KnowledgeItem.objects.filter(pk=current)
            .values_list("superseded_by_id", flat=True)
            .first()
        )
        steps -= 1
    return bool(steps == 0)


def memory_import_many(
    *, user: Any, rows: list[dict[str, Any]], keep: set[int]
) -> list[tuple[KnowledgeItem, str]]:
    """Store cleaned exported items in order, inside the caller's transaction.

    Each row is what `memory_import_clean` returned plus `superseded_by` and
    `source_turn`: ids of the user's rows (already imported), or None. What happens to a
    row, as returned with its item:

    - "skipped": an item with the same content, category, context, entity and creation
      time is there already, so importing twice adds nothing (an active one the file says
      was superseded is linked to its successor);
    - "folded": an active row says what an active item of the account that is not one of
      `keep` says (`dedup.find_match`, as a write does): a newer row folds into it
      (`dedup.fold`), an older one leaves it as it is; an older row that shares most
      words with such an item but says something else leaves it as it is too (the
      account's item is the correction made since), so a correction is never undone;
    - "created": stored as exported, with its lineage and forgotten state; a superseded
      or forgotten row never folds, and nothing folds into it. A newer row that may
      conflict with an item is linked to it (`conflicts_with`), for reconciliation.

    `keep` holds the ids the import already stored or found (updated in place): they are
    never folded into, so no two items of one file merge and none of them is lost.
    """
    _check_links(user, rows)
    out: list[tuple[KnowledgeItem, str]] = []
    upserted: list[int] = []
    removed: list[int] = []
    for row in rows:
        out.append(_import_row(user, row, keep=keep, upserted=upserted, removed=removed))
    if upserted or removed:
        items_changed(user.pk, upserted=upserted, removed=removed)
    _announce_written(user, out, changed=set(upserted))
    return out


def _check_links(user: Any, rows: list[dict[str, Any]]) -> None:
    """Refuse rows whose `superseded_by` or `source_turn` is not one of the user's rows."""
    for name, model in _LINKS.items():
        ids = {row[name] for row in rows if row[name] is not None}
        if ids and model.objects.for_user(user).filter(pk__in=ids).count() != len(ids):
            raise ValidationError({name: "No such row."}, code="does_not_exist")


def _import_row(
    user: Any, row: dict[str, Any], *, keep: set[int], upserted: list[int], removed: list[int]
) -> tuple[KnowledgeItem, str]:
    """One row of `memory_import_many`: skipped, folded or created (its item and which);
    the ids it changes are added to `upserted` and `removed`, the item's to `keep`."""
    fields = {k: v for k, v in row.items() if k not in _LINKS and k != "versions"}
    successor = row["superseded_by"]
    mine = KnowledgeItem.objects.for_user(user)
    same = mine.filter(**{k: row[k] for k in _IMPORT_KEY}).order_by("pk").first()
    if same is not None:
        if _supersede_by(same, successor):
            removed.append(same.pk)
        keep.add(same.pk)
        return same, "skipped"
    if successor is None and row["forgotten_at"] is None:
        match, outcome = dedup.find_match(
            owner_id=user.pk, exclude=keep, **{k: row[k] for k in _IMPORT_KEY[:4]}
        )
        if outcome == "conflict" and row["updated_at"] > match.updated_at:
            fields["conflicts_with"] = match
        elif match is not None:
            if outcome == "fold" and row["updated_at"] > match.updated_at:
                _fold(match, fields, source=row["source"])
                upserted.append(match.pk)
            _versions_add(match, row["versions"])
            keep.add(match.pk)
            return match, "folded"
    item = KnowledgeItem.objects.create(
        owner=user, superseded_by_id=successor, source_turn_id=row["source_turn"], **fields
    )
    _versions_add(item, row["versions"])
    keep.add(item.pk)
    upserted.append(item.pk)
    return item, "created"


def _supersede_by(item: KnowledgeItem, successor: int | None) -> bool:
    """Link an active item the file says was superseded to its successor, unless that
    would close a loop; whether it was linked."""
    if successor is None or not item.is_active or _leads_to(successor, item.pk):
        return False
    item.superseded_by_id = successor
    item.save(update_fields=["superseded_by"])
    return True


def _fold(item: KnowledgeItem, fields: dict[str, Any], *, source: str) -> None:
    """Fold a newer row into `item`, keeping its earlier version when it now says other."""
    before = versions.snapshot(item)
    dedup.fold(item, fields, source=source)
    if versions.says_other(before, item):
        versions.version_keep(before, change_source=source, reason="an import folded in")
    item.save()


def _announce_written(
    user: Any, out: list[tuple[KnowledgeItem, str]], *, changed: set[int]
) -> None:
    """Tell the user's listeners about the items written (a fold that left the item as it
    was is not in `changed`, and tells nobody)."""
    written = [(item, outcome) for item, outcome in out if item.pk in changed]
    for item, outcome in written:
        conflict = "conflict" if item.conflicts_with_id else "new"
        item.outcome = "deduplicated" if outcome == "folded" else conflict
    notify.items_written(user=user, items=[item for item, _ in written])
