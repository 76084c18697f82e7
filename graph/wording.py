"""How the pages word a person's graph for the person reading it: they are "You" (not
"me", the name agents and the API use), their relations read as sentences ("You live in
Lisbon", "Rui works at Atelier Norte", "Marta manages you"), and the names "me",
"myself" and "I", which every person goes by, are not listed as their other names."""

from collections.abc import Iterable
from typing import Any

from graph.models import Entity, Relation
from graph.vocabulary import HOLDER_NAMES, PHRASES, key

YOU = "You"


def shown_name(entity: Entity) -> str:
    return YOU if entity.holder else entity.name


def other_names(entity: Entity, names: Iterable[str]) -> list[str]:
    """The names `entity` also goes by, without its own (and the person's "me")."""
    skip = {key(entity.name), *(HOLDER_NAMES if entity.holder else ())}
    return [name for name in names if key(name) not in skip]


def _to_you(phrase: str) -> str:
    """ "is the partner of" -> "are the partner of", "lives in" -> "live in"."""
    verb, _, rest = phrase.partition(" ")
    if verb == "is":
        verb = "are"
    elif verb.endswith("ies"):
        verb = verb[:-3] + "y"
    elif verb.endswith("s"):
        verb = verb[:-1]
    return f"{verb} {rest}".strip()


def label(type_: str) -> str:
    """A relation type as a short label for a drawing ("partner of", "works at")."""
    return type_.replace("_", " ")


def relation_words(relation: Relation) -> dict[str, Any]:
    """The relation as the person reads it: its two ends (with their entities, for
    links) and the phrase between them."""
    phrase = PHRASES.get(relation.type, label(relation.type))
    subject, obj = relation.subject, relation.object
    if subject.holder:
        phrase = _to_you(phrase)
    return {
        "subject": subject,
        "subject_name": shown_name(subject),
        "phrase": phrase,
        "object": obj,
        "object_name": "you" if obj.holder else obj.name,
    }


def worded(relations: Iterable[Relation]) -> list[Relation]:
    """The relations, each with `words` (and its `ended_by`'s) for a page to show."""
    out = []
    for relation in relations:
        relation.words = relation_words(relation)
        if relation.ended_by is not None:
            relation.ended_by.words = relation_words(relation.ended_by)
        out.append(relation)
    return out
