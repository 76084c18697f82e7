"""The `relate` tool: an agent writes who and what in the person's life relate, and how
("Rui works_at Atelier Norte", "me partner_of Rui"), with the memories it came from.
Offered beside the memory tools: memory/agent_tools.py dispatches it, having checked that
the memories it names are the person's (the graph sits below memory and reads no item)."""

from typing import Any

from core.ids import ID_RANGE
from graph import services
from graph.vocabulary import KINDS, RELATION_TYPES, sentence

_KIND = {"type": "string", "enum": list(KINDS)}
_END = {
    "type": ["integer", "string"],
    **ID_RANGE,  # of an id; a name is any string
    "description": 'An entity\'s name ("Rui", "Atelier Norte"; "me" is the user) or id.',
}
PROPERTIES = {
    "subject": _END,
    "subject_kind": {**_KIND, "description": "The subject's kind when it is new."},
    "type": {
        "type": "string",
        "enum": list(RELATION_TYPES),
        "description": "How they relate. works_at, lives_in and partner_of hold one at a time: "
        "a new one ends the old.",
    },
    "object": _END,
    "object_kind": {**_KIND, "description": "The object's kind when it is new."},
    "valid_from": {"type": "string", "description": "When it started to hold (default now)."},
    "memory_ids": {
        "type": "array",
        "items": {"type": "integer", **ID_RANGE},
        "description": "Ids of the memories that say so (from remember or recall).",
    },
}
DESCRIPTION = (
    "Record how two people, organisations, teams, projects or places in the user's life "
    "relate (Rui works_at Atelier Norte; me partner_of Rui; Marta leads the Helix team), so "
    'recall can follow it ("what does my partner do?"). Names are matched to the user\'s '
    "entities by exact name or alias; new ones are created."
)


def relate(user: Any, data: dict) -> dict:
    """Run `relate` for `user` with arguments `GraphRelationCreateSerializer` validated and
    `memory_ids` the user's own items (the caller checks them); the relation as a
    sentence, with its ids, its start and the relations it ended."""
    ids = data.get("memory_ids", [])
    relation = services.relation_add(
        user=user,
        subject=services.entity_resolve(
            user=user, ref=data["subject"], kind=data.get("subject_kind")
        ),
        type=data["type"],
        object=services.entity_resolve(user=user, ref=data["object"], kind=data.get("object_kind")),
        item_ids=ids,
        valid_from=data.get("valid_from"),
    )
    ended = list(relation.ended.select_related("subject", "object"))
    return {
        "id": relation.pk,
        "relation": sentence(relation.subject.name, relation.type, relation.object.name),
        "subject": {"id": relation.subject_id, "name": relation.subject.name},
        "object": {"id": relation.object_id, "name": relation.object.name},
        "valid_from": relation.valid_from.isoformat(),
        "ended": [sentence(r.subject.name, r.type, r.object.name) for r in ended],
    }
