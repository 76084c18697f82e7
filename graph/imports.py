"""The graph in a memory export and import (memory.portability owns the file): its
records, and the checks of an imported one (graph.services stores them).

An export carries each entity (its name, kind, aliases and the items about it) and each
relation (subject, type, object, when it held, what ended it, the items and turns it was
learned from) under the exporter's ids. An import stores them as they were: an entity
joins the account's entity that already goes by its name (importing twice adds
nothing), a relation is kept with its own start and end (an ended one stays ended, a
holding one ends none of the account's), and one already there with the same subject,
type, object and start is only given the sources it lacks. A relation's `ended_by` names
another relation, of the same subject and type, that ended it: one that still holds, or
names itself, is refused.
"""

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.utils import timezone

from accounts.services import user_zone
from conversations.services.imports import stored_when
from graph.models import Alias, Entity, Mention, Relation
from graph.services import clean_kind, clean_name
from graph.vocabulary import RELATION_TYPES

ALIASES_MAX = 200  # per entity in a file


def _record(kind: str, row: Any, names: tuple[str, ...], **more: Any) -> dict[str, Any]:
    """An export record of `row`: its id, the fields `names` (times as ISO text), `more`."""
    values = {name: getattr(row, name) for name in names}
    values = {k: v.isoformat() if isinstance(v, datetime) else v for k, v in values.items()}
    return {"type": kind, "id": row.pk, **values, **more}


def graph_records(user: Any) -> Iterator[dict[str, Any]]:
    """The user's entities, then relations, as export records (ids are this account's)."""
    entities = (
        Entity.objects.for_user(user)
        .order_by("pk")
        .prefetch_related(
            Prefetch("aliases", Alias.objects.order_by("pk")),
            Prefetch("mentions", Mention.objects.order_by("item_id")),
        )
    )
    for entity in entities.iterator(chunk_size=500):
        yield _record(
            "entity",
            entity,
            ("name", "kind", "holder", "created_at", "updated_at"),
            aliases=[a.text for a in entity.aliases.all() if a.text != entity.name],
            items=[m.item_id for m in entity.mentions.all()],
        )
    relations = Relation.objects.for_user(user).order_by("pk").prefetch_related("turns")
    for relation in relations.iterator(chunk_size=500):
        yield _record(
            "relation",
            relation,
            ("valid_from", "valid_to", "created_at"),
            subject=relation.subject_id,
            relation=relation.type,
            object=relation.object_id,
            ended_by=relation.ended_by_id,
            items=list(relation.item_ids),
            turns=sorted(t.pk for t in relation.turns.all()),
        )


def entity_import_clean(*, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The validated values of an exported entity (its ids are the file's to check)."""
    holder = fields.get("holder", False)
    if not isinstance(holder, bool):
        raise ValidationError({"holder": "Must be true or false."}, code="invalid")
    aliases = fields.get("aliases") or []
    if not isinstance(aliases, list) or len(aliases) > ALIASES_MAX:
        raise ValidationError({"aliases": f"A list of at most {ALIASES_MAX} names."})
    tz = user_zone(user)
    created = stored_when(fields.get("created_at"), field="created_at", tz=tz) or timezone.now()
    return {
        "name": clean_name(fields.get("name")),
        "kind": clean_kind(fields.get("kind", "thing")),
        "holder": holder,
        "aliases": [clean_name(alias, "aliases") for alias in aliases],
        "created_at": created,
        "updated_at": stored_when(fields.get("updated_at"), field="updated_at", tz=tz) or created,
    }


def relation_import_clean(*, user: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """The validated values of an exported relation (its ids are the file's to check)."""
    if fields.get("relation") not in RELATION_TYPES:
        raise ValidationError({"relation": f"One of: {', '.join(RELATION_TYPES)}."})
    tz = user_zone(user)
    start = stored_when(fields.get("valid_from"), field="valid_from", tz=tz)
    if start is None:
        raise ValidationError({"valid_from": "Required."}, code="required")
    end = stored_when(fields.get("valid_to"), field="valid_to", tz=tz)
    if end is not None and end < start:
        raise ValidationError({"valid_to": "A relation ends after it starts."}, code="invalid")
    ended_by = fields.get("ended_by")
    if ended_by is not None and ended_by == fields.get("id"):
        raise ValidationError({"ended_by": "Another relation ends this one, not itself."})
    if ended_by is not None and end is None:
        raise ValidationError({"ended_by": "Only a relation that ended (valid_to) has one."})
    created = stored_when(fields.get("created_at"), field="created_at", tz=tz)
    return {
        "type": fields["relation"],
        "valid_from": start,
        "valid_to": end,
        "created_at": created or start,
    }
