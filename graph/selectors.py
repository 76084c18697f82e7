"""Reads of a person's graph: entities and relations for the API and pages, the names an
entity filter stands for, and which entities a question names (`related`), for recall.

A question names an entity by one of its aliases ("Rui", "Rui Costa"), or by its role
towards the person ("my partner": whom the person is partner_of now; "the team I am
on": what they are a member_of). `related` answers with the items about those entities
and about the entities one relation away, each with the relation that brought it.
"""

import re
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from graph.models import Alias, Entity, Mention, Relation
from graph.vocabulary import ROLE_PATTERN, ROLES, SYMMETRIC, key, sentence

MAX_ITEMS = 300  # items a question's entities may propose


def entities(*, user: Any, kind: str | None = None, q: str | None = None) -> QuerySet[Entity]:
    """The user's entities, by name; `q` keeps those with an alias containing it."""
    found = Entity.objects.for_user(user).order_by("-holder", "name", "pk")
    if kind:
        found = found.filter(kind=kind)
    if q:
        found = found.filter(aliases__key__contains=key(q)).distinct()
    return found


def entity_get(*, user: Any, entity_id: int) -> Entity:
    """The user's entity; Entity.DoesNotExist (a 404) for a missing and a foreign id alike."""
    return Entity.objects.for_user(user).get(pk=entity_id)


def relation_get(*, user: Any, relation_id: int) -> Relation:
    """The user's relation; Relation.DoesNotExist (a 404) for a missing and a foreign id."""
    found = Relation.objects.for_user(user).select_related("subject", "object")
    return found.get(pk=relation_id)


def relations(
    *, user: Any, entity: Entity | None = None, current: bool | None = None
) -> QuerySet[Relation]:
    """The user's relations, newest first; of one entity (either end); only those that
    hold (`current=True`) or only those that ended (`current=False`)."""
    found = Relation.objects.for_user(user).select_related("subject", "object", "ended_by")
    if entity is not None:
        found = found.filter(Q(subject=entity) | Q(object=entity))
    if current is not None:
        found = found.filter(valid_to__isnull=current)
    return found.order_by("-valid_from", "-pk")


def relations_of_turn(*, user: Any, turn_id: int) -> list[Relation]:
    """The user's relations that hold now and were learned from the turn `turn_id`."""
    found = Relation.objects.for_user(user).filter(turns__pk=turn_id, valid_to__isnull=True)
    return list(found.order_by("pk").distinct())


def entity_item_ids(*, user: Any, entity: Entity) -> list[int]:
    """Items about the entity: linked to it, or sources of its relations."""
    ids = set(
        Mention.objects.for_user(user).filter(entity=entity).values_list("item_id", flat=True)
    )
    for sources in relations(user=user, entity=entity).values_list("item_ids", flat=True):
        ids.update(sources)
    return sorted(ids)


def entity_keys(*, user: Any, entity: Entity) -> list[str]:
    """The item `entity` strings that stand for it: `kind:alias` for each of its aliases."""
    names = Alias.objects.for_user(user).filter(entity=entity).values_list("key", flat=True)
    return sorted(
        {f"{entity.kind}:{name}" for name in names} | {f"{entity.kind}:{key(entity.name)}"}
    )


def filter_keys(*, user: Any, entity: str) -> list[str]:
    """What an `entity=` filter ("person:rui") matches: the string itself and, when the
    user has an entity going by that name, every `kind:alias` of it."""
    wanted = entity.lower()
    _, _, name = wanted.partition(":")
    alias = Alias.objects.for_user(user).filter(key=key(name or wanted)).first()
    if alias is None:
        return [wanted]
    return sorted({wanted, *entity_keys(user=user, entity=alias.entity)})


@dataclass
class Related:
    """What the entities a question names bring to its recall."""

    query: str  # the question with each naming phrase replaced by the entity's name
    items: dict[int, str] = field(default_factory=dict)  # item id -> the relation it came by
    keys: dict[str, str] = field(default_factory=dict)  # item `entity` string -> the same

    def via(self, item_id: int, entity: str) -> str:
        return self.items.get(item_id) or self.keys.get(entity, "")


def _named(user: Any, query: str) -> list[tuple[int, int, Entity, str]]:
    """(start, end, entity, how it was named) for each phrase of `query` naming one."""
    found: list[tuple[int, int, Entity, str]] = []
    # One statement for every name the person's entities go by; the person themselves
    # ("me", `entity_holder`) always has aliases, so it comes with them.
    every = list(Alias.objects.for_user(user).select_related("entity"))
    if not every:
        return found
    holder = next((a.entity for a in every if a.entity.holder), None)
    for match in ROLE_PATTERN.finditer(query):
        if holder is None:
            break
        type_, _ = ROLES[(match.group("a") or match.group("b")).lower()]
        ends = Q(subject=holder)
        if type_ in SYMMETRIC:
            ends |= Q(object=holder)
        now = relations(user=user, current=True).filter(ends, type=type_)
        for relation in now:
            other = relation.object if relation.subject_id == holder.pk else relation.subject
            found.append((match.start(), match.end(), other, f"{match.group(0)} is {other.name}"))
    aliases = [a for a in every if not a.entity.holder]
    lowered = query.casefold()
    taken = [(s, e) for s, e, _, _ in found]
    for alias in sorted(aliases, key=lambda a: -len(a.key)):
        for match in re.finditer(rf"(?<!\w){re.escape(alias.key)}(?!\w)", lowered):
            span = (match.start(), match.end())
            if any(s < span[1] and span[0] < e for s, e in taken):
                continue
            taken.append(span)
            found.append((*span, alias.entity, alias.entity.name))
    return sorted(found, key=lambda f: f[0])


def _rewritten(query: str, named: list[tuple[int, int, Entity, str]]) -> str:
    """The question with each naming phrase replaced by the (first) entity it names."""
    out, at = [], 0
    for start, end, entity, _ in named:
        if start < at:
            continue
        out += [query[at:start], entity.name]
        at = end
    return "".join([*out, query[at:]])


def related(*, user: Any, query: str) -> Related | None:
    """The items of the entities `query` names and of those one relation away, each with
    the relation that brought it; None when it names no entity of the user's (recall is
    then exactly what it is without the graph)."""
    if not query or not query.strip():
        return None
    named = _named(user, query)
    if not named:
        return None
    answer = Related(query=_rewritten(query, named))
    seen: set[int] = set()

    def add(entity: Entity, via: str) -> None:
        for item_id in entity_item_ids(user=user, entity=entity):
            answer.items.setdefault(item_id, via)
        for entity_key in entity_keys(user=user, entity=entity):
            answer.keys.setdefault(entity_key, via)

    for _, _, entity, how in named:
        if entity.pk in seen:
            continue
        seen.add(entity.pk)
        add(entity, how)
    for _, _, entity, how in named:
        for relation in relations(user=user, entity=entity):
            other = relation.object if relation.subject_id == entity.pk else relation.subject
            said = sentence(relation.subject.name, relation.type, relation.object.name)
            if relation.valid_to is not None:
                said += f" (until {relation.valid_to:%Y-%m-%d})"
            via = said if how == entity.name else f"{how}; {said}"
            for item_id in relation.item_ids:
                answer.items.setdefault(item_id, via)
            if other.holder or other.pk in seen:
                continue
            seen.add(other.pk)
            add(other, via)
        if len(answer.items) > MAX_ITEMS:
            break
    return answer
