"""Relations follow the memories they came from, as facts follow corrections.

A relation learned from a memory ("me lives_in Porto" from "User lives in Porto") holds
while some memory still says it. When that memory is corrected ("User lives in Lisbon"),
withdrawn, or replaced by another, the relation loses it as a source; left with no live
source, it is ended then, kept, and linked (`ended_by`) to the relation that took its
place: the one of the same subject and type that the change brought. A relation another
live memory still gives, or that the corrected text still states (it names both ends),
keeps holding.

The graph sits below memory: the caller says which items changed, what each says now
and which of the relations' other sources are still live (memory decides that).
"""

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from graph.models import Alias, Entity, Mention, Relation
from graph.vocabulary import SYMMETRIC, key


def relations_citing(
    *, user: Any, item_ids: Iterable[int], ended_by: Iterable[int] = (), lock: bool = False
) -> list[Relation]:
    """The user's relations that came from any of `item_ids` and hold now, or that one
    of the relations `ended_by` ended (locked for the caller's transaction with `lock`)."""
    ids = {int(i) for i in item_ids}
    if not ids:
        return []
    rows = Relation.objects.for_user(user).exclude(item_ids=[])
    rows = rows.filter(Q(valid_to__isnull=True) | Q(ended_by__in=list(ended_by)))
    if lock:
        rows = rows.select_for_update()
    rows = rows.select_related("subject", "object").order_by("pk")
    return [r for r in rows if ids.intersection(r.item_ids)]


def _names(user: Any, entity_ids: set[int]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    rows = Alias.objects.for_user(user).filter(entity_id__in=entity_ids)
    for entity_id, name in rows.values_list("entity_id", "key"):
        found.setdefault(entity_id, []).append(name)
    return found


def _named(text: str, entity: Entity, names: Mapping[int, list[str]]) -> bool:
    """Whether `text` names `entity` by one of its names (the person always counts as
    named: a memory is about them unless it says otherwise)."""
    if entity.holder:
        return True
    said = key(text)
    words = names.get(entity.pk) or [key(entity.name)]
    return any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", said) for w in words)


def _states(relation: Relation, text: str, names: Mapping[int, list[str]]) -> bool:
    """Whether `text` still names both ends of `relation`."""
    return _named(text, relation.subject, names) and _named(text, relation.object, names)


def _successor(relation: Relation, fresh: Sequence[Relation]) -> Relation | None:
    """The relation among `fresh` that took this one's place: same type, same subject
    (either end, for a symmetric type), another relation that holds."""
    for other in fresh:
        if other.pk == relation.pk or other.type != relation.type or other.valid_to is not None:
            continue
        ends = {other.subject_id, other.object_id}
        if other.subject_id == relation.subject_id or (
            relation.type in SYMMETRIC and ends & {relation.subject_id, relation.object_id}
        ):
            return other
    return None


@transaction.atomic
def relations_follow_items(
    *,
    user: Any,
    changed: Mapping[int, str | None],
    live_ids: Iterable[int],
    fresh: Sequence[Relation] = (),
    at: datetime | None = None,
) -> list[Relation]:
    """Items whose text changed (`changed`: id -> what it says now) or that went away
    (id -> None: withdrawn, or replaced by another item) stop being sources of the
    relations they no longer state; `fresh` are the relations the same change stated
    (they keep their sources). A relation left with no live source (`live_ids`: the
    user's items still active) is ended at `at` (default now), `ended_by` its successor
    among `fresh`. A corrected item leaves the relations it no longer states (also those
    a relation of `fresh` already ended); a gone one stays named on them, as where they
    came from. Returns the relations ended."""
    fresh_ids = {r.pk for r in fresh}
    live = {int(i) for i in live_ids}
    rows = relations_citing(user=user, item_ids=changed, ended_by=fresh_ids, lock=True)
    names = _names(user, {e for r in rows for e in (r.subject_id, r.object_id)})
    ended: list[Relation] = []
    for relation in rows:
        if relation.pk in fresh_ids:
            continue
        lost = {
            i
            for i in relation.item_ids
            if i in changed and (changed[i] is None or not _states(relation, changed[i], names))
        }
        if not lost:
            continue
        corrected = {i for i in lost if changed[i] is not None}
        if corrected:
            relation.item_ids = [i for i in relation.item_ids if i not in corrected]
        if relation.current and not any(i in live and i not in lost for i in relation.item_ids):
            end = max(at or timezone.now(), relation.valid_from)
            relation.valid_to, relation.ended_by = end, _successor(relation, fresh)
            ended.append(relation)
        relation.save(update_fields=["item_ids", "valid_to", "ended_by"])
    return ended


def mentions_follow(*, user: Any, item_id: int, before: str, after: str) -> int:
    """A corrected item is no longer about the entities its earlier text named and its
    text now does not ("Rui works at Atelier Norte" become "... at Banco Atlântico": not
    about Atelier Norte any more); a link the text never named (made by hand) stays.
    Returns how many links went."""
    rows = list(Mention.objects.for_user(user).filter(item_id=item_id).select_related("entity"))
    names = _names(user, {m.entity_id for m in rows})
    gone = [
        m.pk for m in rows if _named(before, m.entity, names) and not _named(after, m.entity, names)
    ]
    return Mention.objects.for_user(user).filter(pk__in=gone).delete()[0]
