"""Account-level endpoints: stats, entities, contexts, activity, export and import."""

from django.conf import settings
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.serializers import errors
from learning.llm.status import llm_stats
from memory import portability, selectors

TAG = ["account"]
_COUNTS = serializers.DictField(child=serializers.IntegerField())


class StatsView(APIView):
    @extend_schema(
        operation_id="stats_get",
        tags=TAG,
        summary="Memory statistics",
        description=(
            "Counts by category, context and source (active items), forgotten, superseded "
            "and sensitive items; sessions and turns; tool calls; embedding coverage; the "
            "extraction backlog."
        ),
        responses={
            200: inline_serializer(
                "Stats",
                {
                    "knowledge": serializers.DictField(),
                    "conversations": _COUNTS,
                    "tool_calls": _COUNTS,
                    "embeddings": serializers.DictField(),
                    "extraction": _COUNTS,
                },
            ),
            **errors(),
        },
    )
    def get(self, request: Request) -> Response:
        user = request.user
        return Response({**selectors.memory_stats(user=user), "llm": llm_stats(user=user)})


class LimitSerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1, max_value=1000, default=100, help_text="At most this many (default 100)."
    )


class EntitiesView(APIView):
    @extend_schema(
        operation_id="entities_list",
        tags=TAG,
        summary="Entities",
        description="Entities of active items with their counts, most frequent first.",
        parameters=[LimitSerializer],
        responses={
            200: inline_serializer(
                "EntityList",
                {
                    "results": inline_serializer(
                        "Entity",
                        {
                            "entity": serializers.CharField(),
                            "count": serializers.IntegerField(),
                            "last_updated": serializers.DateTimeField(),
                        },
                        many=True,
                    )
                },
            ),
            **errors(400),
        },
    )
    def get(self, request: Request) -> Response:
        query = LimitSerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        return Response(
            {"results": selectors.entities_list(user=request.user, **query.validated_data)}
        )


class ContextsView(APIView):
    @extend_schema(
        operation_id="contexts_list",
        tags=TAG,
        summary="Contexts",
        description="Contexts of active items with their counts, most frequent first.",
        parameters=[LimitSerializer],
        responses={
            200: inline_serializer(
                "ContextList",
                {
                    "results": inline_serializer(
                        "ContextCount",
                        {"context": serializers.CharField(), "count": serializers.IntegerField()},
                        many=True,
                    )
                },
            ),
            **errors(400),
        },
    )
    def get(self, request: Request) -> Response:
        query = LimitSerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        return Response(
            {"results": selectors.contexts_list(user=request.user, **query.validated_data)}
        )


class ActivityQuerySerializer(serializers.Serializer):
    days = serializers.IntegerField(
        min_value=1, max_value=365, default=30, help_text="The last this many days (default 30)."
    )


class ActivityView(APIView):
    @extend_schema(
        operation_id="activity_daily",
        tags=TAG,
        summary="Daily activity",
        description="Turns, new memories and tool calls per day (UTC), oldest first, no gaps.",
        parameters=[ActivityQuerySerializer],
        responses={
            200: inline_serializer(
                "Activity",
                {
                    "results": inline_serializer(
                        "ActivityDay",
                        {
                            "date": serializers.DateField(),
                            "turns": serializers.IntegerField(),
                            "memories": serializers.IntegerField(),
                            "tool_calls": serializers.IntegerField(),
                        },
                        many=True,
                    )
                },
            ),
            **errors(400),
        },
    )
    def get(self, request: Request) -> Response:
        query = ActivityQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        days = query.validated_data["days"]
        return Response({"results": selectors.activity_timeline(user=request.user, days=days)})


_JSONL = "application/x-ndjson"


class ExportView(APIView):
    @extend_schema(
        operation_id="memories_export",
        tags=TAG,
        summary="Export the whole memory (JSON Lines)",
        description=(
            "Streams every item (forgotten and superseded ones too, with lineage), session, "
            "turn and tool call of the caller as JSON Lines; no embeddings. POST it back to "
            "/api/v1/import/ to restore it here or on another server."
        ),
        responses={
            (200, _JSONL): OpenApiResponse(
                {"type": "string"}, description="One JSON object per line; a header first."
            ),
            **errors(),
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        response = StreamingHttpResponse(
            portability.export_lines(user=request.user), content_type=_JSONL
        )
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="gaia-export-{stamp}.jsonl"'
        return response


class JSONLinesParser(BaseParser):
    """Hands the view the raw body as an iterator of lines (never loaded whole)."""

    media_type = _JSONL

    def parse(self, stream, media_type=None, parser_context=None):
        return iter(stream.readline, b"") if stream is not None else iter(())


class JSONLParser(JSONLinesParser):
    media_type = "application/jsonl"


class ImportView(APIView):
    parser_classes = [JSONLinesParser, JSONLParser]
    max_body_bytes = settings.GAIA_MAX_IMPORT_BYTES

    @extend_schema(
        operation_id="memories_import",
        tags=TAG,
        summary="Import an export (JSON Lines)",
        description=(
            "Body: a file from /api/v1/export/ (Content-Type application/x-ndjson). "
            "Idempotent: records already present are skipped, so importing twice adds "
            "nothing. All or nothing: a bad line is a 400 naming it and nothing is stored. "
            "Ids in the file only link records of the file; they never name existing rows."
        ),
        request={_JSONL: {"type": "string"}},
        responses={
            200: inline_serializer(
                "ImportResult",
                {
                    "created": serializers.DictField(child=serializers.IntegerField()),
                    "skipped": serializers.DictField(child=serializers.IntegerField()),
                },
            ),
            **errors(400, 413, 415),
        },
    )
    def post(self, request: Request) -> Response:
        return Response(portability.import_lines(user=request.user, lines=request.data))
