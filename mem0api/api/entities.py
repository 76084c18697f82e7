"""Ping, and the entities: the app's people (users), their agents, their runs (sessions).

Deleting a user erases that person entirely: their whole memory (privacy's
`app_person_erase`: items, turns, sessions, tool calls...) and then their account, in one
erase that refuses their writes from its start. An
agent: the memories it wrote; a run: the session itself (its turns, tool calls and the
memories stored or learned in it: privacy's `session_erase`); in every one of the app's
people who has it.
"""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import people
from accounts.selectors import agents_first_seen
from conversations.selectors import sessions_first_seen
from mem0api.api.base import Mem0View, NotSupported, app_of, people_for, scoped_items
from mem0api.api.filters import Scope
from memory import selectors as memory_selectors
from memory.models import KnowledgeItem
from privacy import services as privacy_services
from privacy.sessions import session_erase

MAX_LISTED = 1000  # per entity type


class PingView(Mem0View):
    @extend_schema(exclude=True)  # mem0's own API reference describes this surface
    def get(self, request: Request) -> Response:
        app = app_of(request)
        return Response(
            {"status": "ok", "org_id": app.name, "project_id": app.name, "user_email": None}
        )


def _entity(kind: str, name: str, created: Any, owner: str, **more: Any) -> dict[str, Any]:
    return {"id": f"{kind}:{name}", "name": name, "type": kind,
            "created_at": created.isoformat(), "updated_at": created.isoformat(),
            "owner": owner, **more}  # fmt: skip


class EntitiesView(Mem0View):
    @extend_schema(exclude=True)
    def get(self, request: Request) -> Response:
        app = app_of(request)
        persons = people.person_list(app=app)
        user_ids = persons.values("user_id")
        counts = memory_selectors.active_counts(owner_ids=user_ids)
        users = [
            _entity("user", p.external_id, p.created_at, app.name,
                    metadata=p.metadata or None, total_memories=counts.get(p.user_id, 0))
            for p in persons[:MAX_LISTED]
        ]  # fmt: skip
        # Agents that wrote memories (not the app's own, which acts when none is named).
        agent_rows = agents_first_seen(
            owner_ids=user_ids,
            agent_ids=memory_selectors.active_item_agents(owner_ids=user_ids),
            leave_out=app.name,
        )
        agents = [_entity("agent", a["name"], a["first"], app.name) for a in agent_rows]
        run_rows = sessions_first_seen(owner_ids=user_ids)
        runs = [_entity("run", r["session_id"], r["first"], app.name) for r in run_rows]
        results = users + agents[:MAX_LISTED] + runs[:MAX_LISTED]
        return Response(
            {
                "count": len(results),
                "next": None,
                "previous": None,
                "results": results,
                "total_users": persons.count(),
                "total_agents": len(agents),
                "total_apps": 0,
                "total_runs": len(runs),
            }
        )


class EntityView(Mem0View):
    KINDS = ("user", "agent", "run")

    @extend_schema(exclude=True)
    def delete(self, request: Request, kind: str, name: str) -> Response:
        app = app_of(request)
        if kind == "app":
            raise NotSupported("delete_users: app entities are not supported by this server.")
        if kind not in self.KINDS:
            raise ValidationError({"entity_type": ["Use user, agent or run."]})
        if kind == "user":
            person = people.person_get(app=app, external_id=name)  # 404 when not the app's
            privacy_services.app_person_erase(app=app, person=person)
            return Response({"message": "Entity deleted successfully."})
        if kind == "run":
            erased = sum(
                session_erase(user=person.user, session_id=name)["knowledge"]
                for person in people_for(app, Scope(run_id=name))
            )
            return Response({"message": "Entity deleted successfully.", "deleted_memories": erased})
        scope = Scope(agent_id=name)
        erased = 0  # none when no one has it (any more): deleting twice is no error
        for person in people_for(app, scope):
            for item_id in list(scoped_items(person, scope).values_list("pk", flat=True)):
                try:
                    privacy_services.memory_erase(user=person.user, item_id=item_id)
                except KnowledgeItem.DoesNotExist:
                    continue
                erased += 1
        return Response({"message": "Entity deleted successfully.", "deleted_memories": erased})
