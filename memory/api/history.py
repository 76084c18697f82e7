"""An item's history: its versions newest first, restoring one, erasing one.

Every change of what a memory says keeps the earlier state as a version (memory/versions.py);
these endpoints list them, bring one back on request, and erase one for good.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.serializers import refuse_body
from core.api.views import request_body, valid_query
from memory import lineage
from memory.api.history_serializers import HistoryQuerySerializer, HistorySerializer
from memory.api.memories import (
    current_not_forgotten,
    not_forgotten,
    on_memory,
    write_source,
)
from memory.api.serializers import MemorySerializer
from memory.versions import item_history
from privacy import services as privacy_services

VERSION_ID = OpenApiParameter(
    "version_id",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="A version's id, from the item's history.",
)
on_version = on_memory.at(VERSION_ID, row=MemorySerializer)


class MemoryHistoryView(APIView):
    @on_memory.operation(
        "memories_history",
        HistorySerializer,
        parameters=[HistoryQuerySerializer],
        summary="A memory's history",
        description=(
            "What the memory says now (`current`), then each earlier version, newest "
            "first: since and until when, who wrote it (`source`, and the agent token's "
            "name), and why. An id that another item replaced answers with the history "
            "of the item that replaced it (`item_id`). A forgotten item answers 404."
        ),
        failures=(400, 404),
    )
    def get(self, request: Request, pk: int) -> Response:
        limit = valid_query(HistoryQuerySerializer, request)["limit"]
        item = current_not_forgotten(request.user, pk)
        entries = item_history(user=request.user, item=item)[:limit]
        return Response(HistorySerializer({"item_id": item.pk, "results": entries}).data)


class MemoryVersionView(APIView):
    @on_version.row_erase(
        "memories_version_erase",
        summary="Erase one version of a memory",
        description=(
            "Removes that earlier text for good (and redacts the turn it was learned "
            "from). The memory and its other versions stay as they are."
        ),
    )
    def delete(self, request: Request, pk: int, version_id: int) -> Response:
        refuse_body(request_body(request))
        privacy_services.memory_version_erase(user=request.user, item_id=pk, version_id=version_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemoryVersionRestoreView(APIView):
    @on_version.row_action(
        "memories_version_restore",
        summary="Restore one version of a memory",
        description=(
            "The version's text (and category, domain, context, entity, sensitive) "
            "becomes the memory's current state; the current state becomes a version. "
            "A forgotten item answers 404."
        ),
    )
    def post(self, request: Request, pk: int, version_id: int) -> Response:
        refuse_body(request_body(request))
        not_forgotten(request.user, pk)
        item = lineage.memory_version_restore(
            user=request.user,
            item_id=pk,
            version_id=version_id,
            source=write_source(request),
            token=request.auth,
        )
        return Response(MemorySerializer(item).data)
