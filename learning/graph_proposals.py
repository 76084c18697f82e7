"""What a model proposes for the graph beside a fact: the entities it is about and how
they relate, read as tolerantly as the rest of its answer.

A fact may carry `entities` ([{"name": "Rui", "kind": "person"}], or plain names) and
`relations` ([{"subject": "User", "type": "works_at", "object": "Atelier Norte"}]; also
"from"/"to", "source"/"target", "relation"/"predicate", any casing, "Works At" for
works_at). Names are merged with the person's entities by exact alias (the prompt shows
the model the names it knows, so it names the same person the same way); "User", "I"
and "me" are the person themselves. A proposal that cannot be read is dropped alone:
it never refuses the fact it came with.
"""

import logging
import re
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from graph.models import Entity, Relation
from graph.services import entity_create, entity_link_items, relation_add
from graph.vocabulary import HOLDER_NAMES, KINDS, RELATION_TYPES, key

log = logging.getLogger(__name__)
MAX_PROPOSALS = 10  # entities, and relations, per fact
KNOWN_SHOWN = 60  # entity names shown to the model
_SUBJECT = ("subject", "from", "source", "head", "entity1", "a")
_OBJECT = ("object", "to", "target", "tail", "entity2", "b")
_TYPE = ("type", "relation", "predicate", "relationship", "rel", "label")
_KIND_WORDS = {
    "organization": "organisation", "org": "organisation", "company": "organisation",
    "employer": "organisation", "school": "organisation", "city": "place",
    "location": "place", "country": "place", "animal": "pet", "dog": "pet", "cat": "pet",
    "human": "person", "people": "person", "group": "team",
}  # fmt: skip
_TYPE_WORDS = {"works_for": "works_at", "employed_by": "works_at", "married_to": "partner_of",
               "spouse_of": "partner_of", "lives_at": "lives_in", "member": "member_of",
               "manager_of": "manages", "located_at": "located_in", "has": "owns"}  # fmt: skip


def _lower(entry: dict) -> dict:
    return {str(k).strip().lower(): v for k, v in entry.items()}


def _name(value: Any) -> str | None:
    if isinstance(value, dict):
        value = _lower(value).get("name")
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        return None
    return " ".join(value.split())


def _kind(value: Any) -> str:
    word = value.strip().lower() if isinstance(value, str) else ""
    word = _KIND_WORDS.get(word, word)
    return word if word in KINDS else "thing"


def relation_type(value: Any) -> str | None:
    """ "Works At", "works-at", "WORKS_AT" -> works_at; None for a type it does not know."""
    if not isinstance(value, str):
        return None
    word = re.sub(r"[^a-z]+", "_", value.strip().lower()).strip("_")
    word = _TYPE_WORDS.get(word, word)
    return word if word in RELATION_TYPES else None


def _entity(user: Any, value: Any, kind: Any = None) -> Entity | None:
    name = _name(value)
    if name is None:
        return None
    if key(name) in {"user", "the user", *HOLDER_NAMES}:
        name = "me"
    if isinstance(value, dict) and kind is None:
        kind = _lower(value).get("kind") or _lower(value).get("type")
    return entity_create(user=user, name=name, kind=_kind(kind))


def _list(value: Any) -> list:
    return value[:MAX_PROPOSALS] if isinstance(value, list) else []


def proposals_store(*, user: Any, fact: dict, item_id: int, turn_id: int | None) -> list[Relation]:
    """Store the graph a fact proposes, linked to its item and turn; the relations it
    states (new, or already holding)."""
    entries = _lower(fact)
    added: list[Relation] = []
    for value in _list(entries.get("entities") or entries.get("about")):
        try:
            with transaction.atomic():
                entity = _entity(user, value)
                if entity is not None and not entity.holder:
                    entity_link_items(user=user, entity=entity, item_ids=[item_id])
        except ValidationError as error:
            log.info("an entity proposal was dropped: %s", error.messages[0])
    for value in _list(entries.get("relations") or entries.get("relationships")):
        if not isinstance(value, dict):
            continue
        entry = _lower(value)
        type_ = relation_type(next((entry[k] for k in _TYPE if k in entry), None))
        if type_ is None:
            continue
        try:
            with transaction.atomic():
                subject = _entity(
                    user, next((entry[k] for k in _SUBJECT if k in entry), None),
                    entry.get("subject_kind"),
                )  # fmt: skip
                obj = _entity(
                    user, next((entry[k] for k in _OBJECT if k in entry), None),
                    entry.get("object_kind"),
                )  # fmt: skip
                if subject is None or obj is None or subject.pk == obj.pk:
                    continue
                relation = relation_add(
                    user=user, subject=subject, type=type_, object=obj, item_ids=[item_id],
                    turn_ids=[turn_id] if turn_id else [],
                )  # fmt: skip
                for end in (subject, obj):
                    if not end.holder:
                        entity_link_items(user=user, entity=end, item_ids=[item_id])
                added.append(relation)
        except ValidationError as error:
            log.info("a relation proposal was dropped: %s", error.messages[0])
    return added


def known_names(*, user: Any) -> list[dict[str, str]]:
    """The person's entities as the model should name them (most recently changed first)."""
    found = Entity.objects.for_user(user).filter(holder=False).order_by("-updated_at", "-pk")
    return [{"name": e.name, "kind": e.kind} for e in found[:KNOWN_SHOWN]]
