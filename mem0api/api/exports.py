"""An app's export of one of its people: mem0's `get_memory_export(filters={"user_id":
...})` (`POST /v1/exports/get/`) answers that person's whole memory.

The answer is this server's own export (docs/operating.md: the records of
`GET /api/v1/export/`, header first and the count last), as one JSON object the SDK reads:
`{"user_id", "format", "records": [...]}`, streamed. mem0's schema-shaped exports
(`create_memory_export(schema)`, which a model fills in) are not offered: that call
answers 501 naming this one.
"""

import json
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.exceptions import ValidationError as Invalid
from rest_framework.request import Request

from accounts.models import AppPerson
from mem0api.api.base import Mem0View, NotSupported, app_of, people_for
from mem0api.api.memories import scopes_of
from memory.portability.export import export_lines
from memory.portability.format import FORMAT


def _streamed(person: AppPerson) -> Iterator[bytes]:
    head = {"user_id": person.external_id, "format": FORMAT}
    yield json.dumps(head)[:-1].encode() + b', "records": ['
    for number, line in enumerate(export_lines(user=person.user)):
        yield (b"," if number else b"") + line.rstrip(b"\n")
    yield b"]}"


class ExportView(Mem0View):
    """POST /v1/exports/get/: the export of the one person the filters name."""

    @extend_schema(exclude=True)  # mem0's own API reference describes this surface
    def post(self, request: Request) -> StreamingHttpResponse:
        data = request.data if isinstance(request.data, dict) else {}
        if data.get("memory_export_id"):
            raise NotSupported(
                "get_memory_export: memory_export_id is not supported by this server (there "
                'are no export jobs): name the person, filters={"user_id": ...}.'
            )
        found = scopes_of({k: data[k] for k in ("user_id", "filters") if k in data})
        if len(found) != 1 or not found[0].user_id or found[0].agent_id or found[0].run_id:
            raise Invalid({"filters": ["An export is of one person: name only their user_id."]})
        owned = people_for(app_of(request), found[0])
        if not owned:
            raise NotFound("No such user.")
        return StreamingHttpResponse(_streamed(owned[0]), content_type="application/json")


class CreateExportView(Mem0View):
    """POST /v1/exports/: mem0's schema-shaped export, which is not offered here."""

    @extend_schema(exclude=True)
    def post(self, request: Request) -> None:
        raise NotSupported(
            "create_memory_export: exports shaped by a schema are not supported by this "
            'server; get_memory_export(filters={"user_id": ...}) answers the person\'s '
            "whole memory at once (docs/mem0.md)."
        )
