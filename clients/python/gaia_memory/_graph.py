"""The knowledge graph's operations (entities and relations), shared by both clients."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from gaia_memory._request import _Call, _given, _rows


class _GraphApi:
    """Entities and the relations between them; the clients differ only in `_send`."""

    _send: Callable[[_Call], Any]

    def entities(self, *, kind: str | None = None, q: str | None = None) -> list[dict[str, Any]]:
        """The people, organisations, teams, projects, places... of the user's life (first
        page), each with its aliases."""
        params = _given(kind=kind, q=q)
        return self._send(_Call("GET", "graph/entities/", params=params, parse=_rows))

    def entity(self, entity_id: int) -> dict[str, Any]:
        """An entity's page: {"entity", "relations_now", "relations_before", "memories"}."""
        return self._send(_Call("GET", f"graph/entities/{int(entity_id)}/"))

    def add_entity(
        self, name: str, *, kind: str | None = None, aliases: list[str] | None = None
    ) -> dict[str, Any]:
        """An entity called `name` (the one that already goes by it or an alias, if any)."""
        body = _given(name=name, kind=kind, aliases=aliases)
        return self._send(_Call("POST", "graph/entities/", body))

    def entity_aliases(
        self, entity_id: int, *, add: list[str] | None = None, remove: list[str] | None = None
    ) -> dict[str, Any]:
        """Add or remove names an entity goes by: {"entity", "taken"} (names another has)."""
        body = _given(add=add, remove=remove)
        return self._send(_Call("POST", f"graph/entities/{int(entity_id)}/aliases/", body))

    def merge_entities(self, into: int, other: int) -> dict[str, Any]:
        """`other` is the same as `into`: its aliases, memories and relations move over."""
        return self._send(_Call("POST", f"graph/entities/{int(into)}/merge/", {"other": other}))

    def split_entity(
        self,
        entity_id: int,
        name: str,
        *,
        aliases: list[str] | None = None,
        kind: str | None = None,
        memory_ids: list[int] | None = None,
        relation_ids: list[int] | None = None,
    ) -> dict[str, Any]:
        """A new entity `name` takes these aliases, memories and relations of one."""
        body = _given(
            name=name, aliases=aliases, kind=kind, memory_ids=memory_ids, relation_ids=relation_ids
        )
        return self._send(_Call("POST", f"graph/entities/{int(entity_id)}/split/", body))

    def relations(
        self, *, entity: int | None = None, current: bool | None = None
    ) -> list[dict[str, Any]]:
        """The user's relations, newest first (first page): of one entity, only those that
        hold (current=True) or only those that ended (current=False)."""
        params = _given(entity=entity, current=None if current is None else str(current).lower())
        return self._send(_Call("GET", "graph/relations/", params=params, parse=_rows))

    def relate(
        self,
        subject: int | str,
        type: str,
        object: int | str,
        *,
        subject_kind: str | None = None,
        object_kind: str | None = None,
        valid_from: datetime | str | None = None,
        memory_ids: list[int] | None = None,
        turn_ids: list[int] | None = None,
    ) -> dict[str, Any]:
        """`subject` `type` `object` ("me", "partner_of", "Rui"): each end an entity id or a
        name. A new works_at, lives_in or partner_of ends the one it contradicts."""
        body = _given(
            subject=subject, type=type, object=object, subject_kind=subject_kind,
            object_kind=object_kind, valid_from=valid_from, memory_ids=memory_ids,
            turn_ids=turn_ids,
        )  # fmt: skip
        return self._send(_Call("POST", "graph/relations/", body))

    def end_relation(self, relation_id: int, *, at: datetime | str | None = None) -> dict[str, Any]:
        """The relation stopped holding (now, or `at`); it is kept with its end."""
        path = f"graph/relations/{int(relation_id)}/end/"
        return self._send(_Call("POST", path, _given(at=at)))
