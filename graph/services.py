"""Every change to a person's graph: entities (create, alias, merge, split, link items),
relations (add, end), and erasure. Never across owners: every row passed in is checked
against `user` (`own_row`), and names resolve among the user's own aliases only."""

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from conversations.models import Turn
from core.ownership import own_row
from core.text import check_text
from graph.models import Alias, Entity, Mention, Relation
from graph.vocabulary import HOLDER_NAMES, KINDS, RELATION_TYPES, SINGLE_VALUED, SYMMETRIC, key

MAX_NAME = 200


def clean_name(value: Any, field: str = "name") -> str:
    text = " ".join(value.split()) if isinstance(value, str) else ""
    if not text:
        raise ValidationError({field: "A name is required."}, code="required")
    check_text(text, field=field)
    if len(text) > MAX_NAME:
        raise ValidationError({field: f"At most {MAX_NAME} characters."}, code="max_length")
    return text


def clean_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValidationError({"kind": f"One of: {', '.join(KINDS)}."}, code="invalid")
    return kind


def entity_holder(*, user: Any) -> Entity:
    """The person themselves ("me"), created on first use."""
    found = Entity.objects.for_user(user).filter(holder=True).first()
    if found is not None:
        return found
    with transaction.atomic():
        holder = Entity.objects.create(owner=user, kind="person", name="me", holder=True)
        for name in HOLDER_NAMES:
            Alias.objects.get_or_create(
                owner=user, key=key(name), defaults={"entity": holder, "text": name}
            )
    return holder


def _add_aliases(user: Any, entity: Entity, names: Iterable[str]) -> list[str]:
    """Give `entity` each of `names` that no entity of the user goes by yet; the names
    another entity already has are returned (they stay with it)."""
    taken = []
    for name in names:
        text = clean_name(name, "aliases")
        with transaction.atomic():
            alias, created = Alias.objects.get_or_create(
                owner=user, key=key(text), defaults={"entity": entity, "text": text}
            )
        if not created and alias.entity_id != entity.pk:
            taken.append(text)
    return taken


def entity_by_name(*, user: Any, name: str) -> Entity | None:
    """The user's entity that goes by `name` (exact alias, case and spacing ignored)."""
    alias = Alias.objects.for_user(user).filter(key=key(name)).select_related("entity").first()
    return alias.entity if alias else None


def entity_create(
    *, user: Any, name: str, kind: str = "thing", aliases: Sequence[str] = ()
) -> Entity:
    """The user's entity called `name`: an existing one that goes by `name` or any of
    `aliases` (merged by exact alias, without a model), given the new aliases, or a new one.
    "me", "myself" and "I" name the person themselves."""
    text, kind = clean_name(name), clean_kind(kind)
    if key(text) in HOLDER_NAMES:
        return entity_holder(user=user)
    names = [text, *aliases]
    for candidate in names:
        found = entity_by_name(user=user, name=candidate)
        if found is not None:
            _add_aliases(user, found, names)
            if found.kind == "thing" and kind != "thing":  # named before its kind was known
                found.kind = kind
                found.save(update_fields=["kind"])
            return found
    try:
        with transaction.atomic():
            entity = Entity.objects.create(owner=user, kind=kind, name=text)
            _add_aliases(user, entity, names)
    except IntegrityError:  # another writer created it meanwhile: theirs stands
        found = entity_by_name(user=user, name=text)
        if found is None:
            raise
        return found
    return entity


def entity_resolve(*, user: Any, ref: int | str, kind: str | None = None) -> Entity:
    """The user's entity `ref` names: an id (another user's is "No such entity."), or a
    name, resolved by exact alias or created as `kind` (default "thing")."""
    if isinstance(ref, str):
        return entity_create(user=user, name=ref, kind=kind or "thing")
    return own_row(user, Entity, ref, field="entity")


def entity_alias_add(*, user: Any, entity: Entity | int, aliases: Sequence[str]) -> list[str]:
    """Add `aliases` to the entity; returns those another entity already goes by (merge
    the two to join them)."""
    entity = own_row(user, Entity, entity, field="entity")
    return _add_aliases(user, entity, aliases)


def entity_alias_remove(*, user: Any, entity: Entity | int, alias: str) -> None:
    """The entity no longer goes by `alias` (its own name stays)."""
    entity = own_row(user, Entity, entity, field="entity")
    if key(alias) == key(entity.name):
        raise ValidationError({"alias": "An entity keeps its own name."}, code="invalid")
    Alias.objects.for_user(user).filter(entity=entity, key=key(alias)).delete()


def entity_link_items(*, user: Any, entity: Entity | int, item_ids: Iterable[int]) -> None:
    """Mark items as being about the entity (ids the caller checked are the user's)."""
    entity = own_row(user, Entity, entity, field="entity")
    for item_id in {int(i) for i in item_ids}:
        Mention.objects.get_or_create(owner=user, entity=entity, item_id=item_id)


@transaction.atomic
def entity_merge(*, user: Any, into: Entity | int, other: Entity | int) -> Entity:
    """`other` is the same as `into`: its aliases, items and relations move to `into`,
    and `other` is gone. Both must be the user's."""
    into = own_row(user, Entity, into, field="into")
    other = own_row(user, Entity, other, field="other")
    if into.pk == other.pk:
        raise ValidationError({"other": "An entity is itself already."}, code="invalid")
    if other.holder:
        into, other = other, into  # the person stays the person
    Alias.objects.for_user(user).filter(entity=other).update(entity=into)
    for item_id in Mention.objects.filter(entity=other).values_list("item_id", flat=True):
        Mention.objects.get_or_create(owner=user, entity=into, item_id=item_id)
    Mention.objects.filter(entity=other).delete()
    Relation.objects.for_user(user).filter(subject=other).update(subject=into)
    Relation.objects.for_user(user).filter(object=other).update(object=into)
    Relation.objects.for_user(user).filter(subject=into, object=into).delete()
    other.delete()
    into.updated_at = timezone.now()
    into.save(update_fields=["updated_at"])
    return into


@transaction.atomic
def entity_split(
    *,
    user: Any,
    entity: Entity | int,
    name: str,
    aliases: Sequence[str] = (),
    kind: str | None = None,
    item_ids: Iterable[int] = (),
    relation_ids: Iterable[int] = (),
) -> Entity:
    """Part of `entity` is someone else: a new entity `name` takes the given aliases, items
    and relations (those of `entity` among them; the rest stay)."""
    entity = own_row(user, Entity, entity, field="entity")
    text = clean_name(name)
    moving = {key(a) for a in (text, *aliases)}
    if key(entity.name) in moving:
        raise ValidationError({"name": "The entity keeps its own name."}, code="invalid")
    new = Entity.objects.create(owner=user, kind=clean_kind(kind or entity.kind), name=text)
    Alias.objects.for_user(user).filter(entity=entity, key__in=moving).update(entity=new)
    _add_aliases(user, new, [text, *aliases])
    ids = {int(i) for i in item_ids}
    Mention.objects.filter(entity=entity, item_id__in=ids).update(entity=new)
    for item_id in ids:
        Mention.objects.get_or_create(owner=user, entity=new, item_id=item_id)
    moved = Relation.objects.for_user(user).filter(pk__in=list(relation_ids))
    moved.filter(subject=entity).update(subject=new)
    moved.filter(object=entity).update(object=new)
    return new


def _same(subject: Entity, type_: str, obj: Entity) -> Q:
    q = Q(subject=subject, type=type_, object=obj)
    if type_ in SYMMETRIC:
        q |= Q(subject=obj, type=type_, object=subject)
    return q


@transaction.atomic
def relation_add(
    *,
    user: Any,
    subject: Entity | int,
    type: str,
    object: Entity | int,
    item_ids: Iterable[int] = (),
    turn_ids: Iterable[int] = (),
    valid_from: datetime | None = None,
) -> Relation:
    """`subject` `type` `object` holds from `valid_from` (default now), learned from the
    given items and turns. When it already holds, it gains those sources. A relation of a
    single-valued type (works_at, lives_in, partner_of) ends the subject's other one of
    that type (and, for partner_of, the object's): its `valid_to` is this one's start and
    `ended_by` this one; one learned late, that started before the one holding now, is
    itself ended when that one started. Ended relations are kept."""
    subject = own_row(user, Entity, subject, field="subject")
    obj = own_row(user, Entity, object, field="object")
    if type not in RELATION_TYPES:
        raise ValidationError({"type": f"One of: {', '.join(RELATION_TYPES)}."}, code="invalid")
    if subject.pk == obj.pk:
        raise ValidationError({"object": "An entity relates to another."}, code="invalid")
    start = valid_from or timezone.now()
    relations = Relation.objects.for_user(user).select_for_update()
    relation = relations.filter(_same(subject, type, obj), valid_to__isnull=True).first()
    if relation is None:
        relation = Relation.objects.create(
            owner=user, subject=subject, type=type, object=obj, valid_from=start
        )
        if type in SINGLE_VALUED:
            holders = Q(subject=subject)
            if type in SYMMETRIC:
                holders |= Q(object=subject) | Q(subject=obj) | Q(object=obj)
            others = relations.filter(holders, type=type, valid_to__isnull=True)
            others = others.exclude(pk=relation.pk)
            others.filter(valid_from__lte=start).update(valid_to=start, ended_by=relation)
            # Learned late: one that started before a later one held only until that one.
            later = others.filter(valid_from__gt=start).order_by("valid_from").first()
            if later is not None:
                relation.valid_to, relation.ended_by = later.valid_from, later
                relation.save(update_fields=["valid_to", "ended_by"])
    sources = [i for i in {int(i) for i in item_ids} if i not in relation.item_ids]
    if sources:
        relation.item_ids = [*relation.item_ids, *sources]
        relation.save(update_fields=["item_ids"])
    turns = Turn.objects.for_user(user).filter(pk__in=list(turn_ids))
    relation.turns.add(*turns)
    return relation


def relation_end(*, user: Any, relation: Relation | int, at: datetime | None = None) -> Relation:
    """The relation stopped holding at `at` (default now); kept, with that end."""
    relation = own_row(user, Relation, relation, field="relation")
    if relation.valid_to is None:
        end = at or timezone.now()
        if end < relation.valid_from:
            raise ValidationError({"at": "A relation ends after it starts."}, code="invalid")
        relation.valid_to = end
        relation.save(update_fields=["valid_to"])
    return relation


# --- Import (graph.imports checks the rows; memory.portability maps the file's ids).


@transaction.atomic
def entity_import(
    *, user: Any, row: dict[str, Any], item_ids: Iterable[int]
) -> tuple[Entity, bool]:
    """The account's entity for an exported one (see graph.imports), linked to the
    items about it (ids the caller mapped to the user's items); and whether it is new."""
    holder = row["holder"] or key(row["name"]) in HOLDER_NAMES  # "me" is the person
    if holder:
        created = not Entity.objects.for_user(user).filter(holder=True).exists()
        entity = entity_holder(user=user)
    else:
        names = (entity_by_name(user=user, name=n) for n in [row["name"], *row["aliases"]])
        found = next((e for e in names if e is not None), None)
        created = found is None
        entity = found or Entity.objects.create(
            owner=user,
            kind=row["kind"],
            name=row["name"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )
        if found is not None and found.kind == "thing" and row["kind"] != "thing":
            found.kind = row["kind"]
            found.save(update_fields=["kind"])
    _add_aliases(user, entity, row["aliases"] if holder else [row["name"], *row["aliases"]])
    for item_id in sorted({int(i) for i in item_ids}):
        Mention.objects.get_or_create(owner=user, entity=entity, item_id=item_id)
    return entity, created


@transaction.atomic
def relation_import(
    *,
    user: Any,
    row: dict[str, Any],
    subject: Entity | int,
    object: Entity | int,  # noqa: A002 (the relation's own word)
    item_ids: Iterable[int],
    turn_ids: Iterable[int],
) -> tuple[Relation, bool]:
    """The account's relation for an exported one (see graph.imports), with the
    sources the caller mapped to the user's rows; and whether it is new."""
    subject = own_row(user, Entity, subject, field="subject")
    obj = own_row(user, Entity, object, field="object")
    if subject.pk == obj.pk:
        raise ValidationError({"object": "An entity relates to another."}, code="invalid")
    mine = Relation.objects.for_user(user)
    same = {"subject": subject, "type": row["type"], "object": obj}
    relation = mine.filter(**same, valid_from=row["valid_from"]).first()
    created = relation is None
    if relation is None:
        relation = Relation.objects.create(owner=user, **same, **_times(row))
    sources = [i for i in dict.fromkeys(int(i) for i in item_ids) if i not in relation.item_ids]
    if sources:
        relation.item_ids = [*relation.item_ids, *sources]
        relation.save(update_fields=["item_ids"])
    relation.turns.add(*Turn.objects.for_user(user).filter(pk__in=list(turn_ids)))
    return relation, created


def _times(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in ("valid_from", "valid_to", "created_at")}


def relations_import_ends(*, user: Any, ends: Iterable[tuple[int, int]]) -> int:
    """Link each imported relation to the relation that ended it: (relation, ended by),
    both the user's, another relation of the same subject and type, the first one ended
    (it has a valid_to); one already linked keeps its link. Returns how many were linked."""
    ends = [(pk, by) for pk, by in ends if pk != by]
    mine = Relation.objects.for_user(user)
    enders = {
        pk: (subject, kind)
        for pk, subject, kind in mine.filter(pk__in=[by for _, by in ends]).values_list(
            "pk", "subject_id", "type"
        )
    }
    unlinked = mine.filter(ended_by__isnull=True, valid_to__isnull=False)
    linked = 0
    for pk, by in ends:
        if by in enders:
            subject, kind = enders[by]
            linked += unlinked.filter(pk=pk, subject_id=subject, type=kind).update(ended_by=by)
    return linked


def graph_forget_items(*, user: Any, item_ids: Iterable[int]) -> None:
    """Erased items leave the graph: no entity or relation names them any more."""
    ids = {int(i) for i in item_ids}
    if not ids:
        return
    Mention.objects.for_user(user).filter(item_id__in=ids).delete()
    for relation in Relation.objects.for_user(user).exclude(item_ids=[]):
        kept = [i for i in relation.item_ids if i not in ids]
        if kept != relation.item_ids:
            relation.item_ids = kept
            relation.save(update_fields=["item_ids"])


def graph_erase_user(*, user: Any) -> int:
    """Every entity, alias, mention and relation of the user is deleted; returns how many
    entities were."""
    Relation.objects.for_user(user).delete()
    Mention.objects.for_user(user).delete()
    Alias.objects.for_user(user).delete()
    count, _ = Entity.objects.for_user(user).delete()
    return count
