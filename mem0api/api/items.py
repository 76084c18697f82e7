"""One memory by id (get, update, delete, history) and the batch update and delete.

A memory id is one of our item ids, as a string. It is looked up among the app's people
only: an id of another app's person, a forgotten or replaced item, or a missing one all
answer the same 404 (mem0's SDK raises MemoryNotFoundError). Delete erases for good
(privacy's `memory_erase`: the item, its versions, its traces). Every change is written
through the app's acting token, so the history names the app and its token.
"""

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.models import AppPerson
from mem0api.api.base import (
    Mem0View,
    NotSupported,
    acting,
    app_of,
    item_of_app,
    refuse_unsupported,
    runs_of,
)
from mem0api.api.serializers import BatchSerializer, UpdateSerializer, changes_of, memory_out
from memory import services as memory_services
from memory.models import KnowledgeItem
from memory.versions import item_history
from privacy import services as privacy_services

UPDATE_UNSUPPORTED = {"timestamp", "expiration_date"}


def _out(person: AppPerson, item: KnowledgeItem) -> dict[str, Any]:
    return memory_out(item, person=person, run_id=runs_of([item]).get(item.pk))


class MemoryView(Mem0View):
    @extend_schema(exclude=True)  # mem0's own API reference describes this surface
    def get(self, request: Request, memory_id: str) -> Response:
        person, item = item_of_app(app_of(request), memory_id)
        return Response(_out(person, item))

    @extend_schema(exclude=True)
    def put(self, request: Request, memory_id: str) -> Response:
        data = request.data if isinstance(request.data, dict) else {}
        refuse_unsupported(data, UPDATE_UNSUPPORTED, "update")
        given = UpdateSerializer(
            data={k: v for k, v in data.items() if k not in UPDATE_UNSUPPORTED}
        )
        given.is_valid(raise_exception=True)
        person, item = item_of_app(app_of(request), memory_id)
        updated = memory_services.memory_update(
            user=person.user,
            item_id=item.pk,
            token=acting(request, person),
            reason="mem0 update",
            **changes_of(given.validated_data),
        )
        return Response(_out(person, updated))

    @extend_schema(exclude=True)
    def post(self, request: Request, memory_id: str) -> Response:
        """POST /v1/memories/search/ is mem0's v1 search (older SDKs): 501 naming v2's."""
        if memory_id == "search":
            raise NotSupported(
                "search: POST /mem0/v1/memories/search/ is mem0's v1 search; this server "
                "answers the v2 call, POST /mem0/v3/memories/search/ with filters (mem0ai "
                "2.x search)."
            )
        raise NotSupported("POST on a memory is not a call of mem0's API (update is PUT).")

    @extend_schema(exclude=True)
    def delete(self, request: Request, memory_id: str) -> Response:
        person, item = item_of_app(app_of(request), memory_id)
        privacy_services.memory_erase(user=person.user, item_id=item.pk)
        return Response({"message": "Memory deleted successfully!"})


class HistoryView(Mem0View):
    @extend_schema(exclude=True)
    def get(self, request: Request, memory_id: str) -> Response:
        person, item = item_of_app(app_of(request), memory_id)
        entries = [e for e in item_history(user=person.user, item=item, replaced=False)]
        entries.reverse()  # mem0 lists a memory's history oldest first
        out, before = [], None
        run_id = runs_of([item]).get(item.pk)
        for number, entry in enumerate(entries):
            out.append(
                {
                    "id": f"{item.pk}-{number}",
                    "memory_id": str(item.pk),
                    "input": [],
                    "old_memory": before,
                    "new_memory": entry.content,
                    "event": "ADD" if number == 0 else "UPDATE",
                    "user_id": person.external_id,
                    "agent_id": None,
                    "app_id": None,
                    "run_id": run_id,
                    "categories": [entry.category],
                    "metadata": None,
                    "created_at": entry.since.isoformat(),
                    "updated_at": (entry.until or entry.since).isoformat(),
                    # Who wrote this state: its source, agent and (app) token's name.
                    "changed_by": {
                        "source": entry.source,
                        "agent": entry.agent or None,
                        "token": entry.token or None,
                        "reason": entry.reason or None,
                    },
                }
            )
            before = entry.content
        return Response(out)


def _batch(request: Request) -> list[tuple[AppPerson, KnowledgeItem, dict]]:
    """Every entry's person and item, all found before anything is written."""
    given = BatchSerializer(data=request.data)
    given.is_valid(raise_exception=True)
    app = app_of(request)
    return [
        (*item_of_app(app, entry["memory_id"]), changes_of(entry))
        for entry in given.validated_data["memories"]
    ]


class BatchView(Mem0View):
    @extend_schema(exclude=True)
    def put(self, request: Request) -> Response:
        found = _batch(request)
        with transaction.atomic():
            for person, item, changes in found:
                if changes:
                    memory_services.memory_update(
                        user=person.user,
                        item_id=item.pk,
                        token=acting(request, person),
                        reason="mem0 batch update",
                        **changes,
                    )
        return Response({"message": f"Successfully updated {len(found)} memories"})

    @extend_schema(exclude=True)
    def delete(self, request: Request) -> Response:
        found = _batch(request)
        erased = 0
        for person, item, _ in found:
            try:
                privacy_services.memory_erase(user=person.user, item_id=item.pk)
            except KnowledgeItem.DoesNotExist:  # listed twice, or erased with another
                continue
            erased += 1
        return Response({"message": f"Successfully deleted {erased} memories"})
