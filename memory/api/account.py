"""Account-level endpoints: stats, entities, contexts, activity, export and import."""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.openapi import errors, operation, path_id, row_answer
from core.api.views import PagedListView, valid_query
from learning.llm.status import llm_stats
from memory import import_jobs, selectors
from memory.models import ImportJob
from memory.portability.export import export_lines
from memory.portability.format import LINE_MAX
from skills.selectors import skill_stats

TAG = ["account"]
_COUNTS = serializers.DictField(child=serializers.IntegerField())


class StatsView(APIView):
    @operation(
        "stats_get",
        inline_serializer(
            "Stats",
            {
                "knowledge": serializers.DictField(
                    help_text="Active items by category, context and source, forgotten, "
                    "superseded, sensitive, and `last_updated` (the newest change; null "
                    "without any)."
                ),
                "conversations": _COUNTS,
                "tool_calls": _COUNTS,
                "embeddings": serializers.DictField(),
                "extraction": _COUNTS,
                "usage": serializers.DictField(
                    help_text="Searches, memories used and skills applied in the last 7 "
                    "days (`*_this_week`) and per day."
                ),
                "skills": serializers.DictField(
                    help_text="Skills your agents helped learn: total, by agent type and "
                    "status, average confidence."
                ),
            },
        ),
        tags=TAG,
        summary="Memory statistics",
        description=(
            "Counts by category, context and source (active items), forgotten, superseded "
            "and sensitive items; sessions and turns; tool calls; embedding coverage; the "
            "extraction backlog; usage this week (searches, memories used, skills applied) "
            "and the skills your agents helped learn."
        ),
    )
    def get(self, request: Request) -> Response:
        user = request.user
        return Response(
            {
                **selectors.memory_stats(user=user),
                "llm": llm_stats(user=user),
                "skills": skill_stats(user=user),
            }
        )


def _results_schema(
    operation_id: str,
    summary: str,
    description: str,
    query: type[serializers.Serializer],
    names: tuple[str, str],
    fields: dict[str, serializers.Field],
) -> Any:
    """The schema of a list read by a query string, answered `{"results": [row, ...]}`
    (`names`: the answer's and the row's)."""
    name, row = names
    return extend_schema_view(
        get=operation(
            operation_id,
            inline_serializer(name, {"results": inline_serializer(row, fields, many=True)}),
            tags=TAG,
            summary=summary,
            description=description,
            parameters=[query],
            failures=(400,),
        )
    )


class _ResultsView(APIView):
    """The rows `selector` gives the caller for the query string (read by `query_class`),
    as `{"results": [...]}`."""

    query_class: type[serializers.Serializer]
    selector: Callable[..., list]

    def get(self, request: Request) -> Response:
        given = valid_query(self.query_class, request)
        return Response({"results": self.selector(user=request.user, **given)})


class LimitSerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1, max_value=1000, default=100, help_text="At most this many (default 100)."
    )


@_results_schema(
    "entities_list",
    "Entities",
    "Entities of active items with their counts, most frequent first.",
    LimitSerializer,
    ("EntityList", "Entity"),
    {
        "entity": serializers.CharField(),
        "count": serializers.IntegerField(),
        "last_updated": serializers.DateTimeField(),
    },
)
class EntitiesView(_ResultsView):
    query_class = LimitSerializer
    selector = staticmethod(selectors.entities_list)


@_results_schema(
    "contexts_list",
    "Contexts",
    "Contexts of active items with their counts, most frequent first.",
    LimitSerializer,
    ("ContextList", "ContextCount"),
    {"context": serializers.CharField(), "count": serializers.IntegerField()},
)
class ContextsView(_ResultsView):
    query_class = LimitSerializer
    selector = staticmethod(selectors.contexts_list)


class ActivityQuerySerializer(serializers.Serializer):
    days = serializers.IntegerField(
        min_value=1, max_value=365, default=30, help_text="The last this many days (default 30)."
    )


@_results_schema(
    "activity_daily",
    "Daily activity",
    "Turns, new memories and tool calls per day (UTC), oldest first, no gaps.",
    ActivityQuerySerializer,
    ("Activity", "ActivityDay"),
    {
        "date": serializers.DateField(),
        "turns": serializers.IntegerField(),
        "memories": serializers.IntegerField(),
        "tool_calls": serializers.IntegerField(),
    },
)
class ActivityView(_ResultsView):
    query_class = ActivityQuerySerializer
    selector = staticmethod(selectors.activity_timeline)


_JSONL = "application/x-ndjson"


class ExportView(APIView):
    @extend_schema(
        operation_id="memories_export",
        tags=TAG,
        summary="Export the whole memory (JSON Lines)",
        description=(
            "Streams every item (forgotten and superseded ones too, with lineage), session, "
            "turn and tool call of the caller as JSON Lines; no embeddings. The last line, "
            '`{"type": "end", "records": N}`, counts the records: a file without it was cut '
            "short. POST it back to /api/v1/import/ to restore it here or on another server."
        ),
        responses={
            (200, _JSONL): OpenApiResponse(
                {"type": "string"},
                description="One JSON object per line: a header first, the count last.",
            ),
            **errors(),
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        response = StreamingHttpResponse(export_lines(user=request.user), content_type=_JSONL)
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="gaia-export-{stamp}.jsonl"'
        return response


class JSONLinesParser(BaseParser):
    """Hands the view the raw body as an iterator of lines (never loaded whole; a line
    longer than the import allows comes in pieces, and the import refuses it)."""

    media_type = _JSONL

    def parse(self, stream, media_type=None, parser_context=None):
        if stream is None:
            return iter(())
        return iter(lambda: stream.readline(LINE_MAX + 1), b"")


class JSONLParser(JSONLinesParser):
    media_type = "application/jsonl"


class ImportJobSerializer(serializers.ModelSerializer):
    created = serializers.DictField(child=serializers.IntegerField())
    skipped = serializers.DictField(child=serializers.IntegerField())

    class Meta:
        model = ImportJob
        fields = [
            "id", "status", "size_bytes", "records_total", "records_done", "created",
            "skipped", "error", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


class ImportView(APIView):
    parser_classes = [JSONLinesParser, JSONLParser]
    max_body_bytes = settings.GAIA_MAX_IMPORT_BYTES

    @extend_schema(
        operation_id="memories_import",
        tags=TAG,
        summary="Import an export (JSON Lines)",
        description=(
            "Body: a file from /api/v1/export/ (Content-Type application/x-ndjson). The "
            "whole file is checked before anything is stored. A file of at most "
            "GAIA_IMPORT_SYNC_BYTES (256 KiB by default) is checked and imported at once "
            "(200, the counts; a bad line is a 400 naming it); a larger one is checked and "
            "imported by a worker: the answer is 202 with the import job (its progress at "
            "/api/v1/imports/{id}/; `records_total` is 0 until the file is checked, and a "
            "bad line fails the job, its `error` naming the line, with nothing stored). "
            "Idempotent: records already present are skipped, so importing twice adds "
            "nothing. Ids in the file only link records of the file; they never name "
            "existing rows. Through a token, items are stored as a token's writes: source "
            "at most `tool`, confidence at most 0.7, privileged categories refused."
        ),
        request={_JSONL: {"type": "string"}},
        responses={
            200: inline_serializer("ImportResult", {"created": _COUNTS, "skipped": _COUNTS}),
            202: ImportJobSerializer,
            **errors(400, 413, 415),
        },
    )
    def post(self, request: Request) -> Response:
        result, job = import_jobs.import_start(
            user=request.user, lines=request.data, trusted=request.auth is None
        )
        if job is None:
            return Response(result)
        location = reverse("api-import-detail", args=[job.pk])
        return Response(ImportJobSerializer(job).data, status=202, headers={"Location": location})


class ImportJobListView(PagedListView):
    serializer_class = ImportJobSerializer

    @operation(
        "imports_list",
        ImportJobSerializer(many=True),
        tags=TAG,
        summary="Imports run by a worker",
        description="The caller's large imports with their progress, newest first.",
        failures=(404,),
    )
    def get(self, request: Request) -> Response:
        return self.paged(selectors.import_jobs_list(user=request.user))


class ImportJobDetailView(APIView):
    @row_answer(
        "imports_get",
        ImportJobSerializer,
        tags=TAG,
        parameters=[path_id("The import's id (from the import answer or the imports list).")],
        summary="One import's progress",
        description=(
            "`status`: queued, running, done or failed (with `error`); `records_done` of "
            "`records_total`; `created` and `skipped` per record type so far."
        ),
    )
    def get(self, request: Request, pk: int) -> Response:
        job = selectors.import_job_get(user=request.user, job_id=pk)
        return Response(ImportJobSerializer(job).data)
