"""Agent API of the background jobs: extract, consolidate on demand, profile block.

Views only parse input, call one service and shape output. No LLM, or an LLM that gave
no usable answer, is a 503 with the usual error shape (never a 500).
"""

from drf_spectacular.utils import extend_schema_serializer, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.agents import (
    read_context,
    request_active_context,
    request_agent,
    request_context,
    with_context,
)
from conversations.models import Session
from core.api.openapi import (
    BODY_ERRORS,
    SESSION_ID,
    body_action,
    body_example,
    operation,
    row_action,
)
from core.api.serializers import StrictSerializer, refuse_body
from core.api.views import request_body, valid_body, valid_query
from learning.consolidation import consolidate_session
from learning.extract_text import TEXT_MAX, text_extract
from learning.llm import LLMError
from learning.profile import profile_block
from memory.services import memory_seen


class LLMUnavailable(APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "llm_unavailable"
    default_detail = "The language model is not available; try again later."


def _unavailable(error: LLMError) -> LLMUnavailable:
    if error.kind == "not_configured":
        return LLMUnavailable(
            "No language model is configured on this server.", "llm_not_configured"
        )
    return LLMUnavailable(f"The language model gave no usable answer ({error.kind}).")


class ExtractedFact(serializers.Serializer):
    content = serializers.CharField()
    category = serializers.CharField(required=False)
    entity = serializers.CharField(required=False)
    domain = serializers.CharField(required=False)
    id = serializers.IntegerField(required=False, help_text="stored item id")
    deduplicated = serializers.BooleanField(required=False)
    error = serializers.CharField(required=False, help_text="why it was not stored")


@extend_schema_serializer(component_name="Extract")
class ExtractIn(StrictSerializer):
    text = serializers.CharField(
        max_length=TEXT_MAX, help_text="The text to read: notes, a document, a long message."
    )
    store = serializers.BooleanField(
        default=False, help_text="Remember the facts (default false: only return them)."
    )
    context = serializers.CharField(
        max_length=100,
        required=False,
        help_text="Context of the stored facts, e.g. work (default: the X-Gaia-Context "
        "header, else the agent's default context).",
    )


class ExtractView(APIView):
    @body_action(
        "memories_extract",
        ExtractIn,
        inline_serializer(
            "ExtractResult",
            {"facts": ExtractedFact(many=True), "stored": serializers.IntegerField()},
        ),
        examples=[
            body_example(
                "meeting notes",
                {
                    "text": "Met Sarah Chen (CTO) today: the launch moved to March and they "
                    "want PostgreSQL for the user database.",
                    "store": True,
                    "context": "work",
                },
            )
        ],
        tags=["memories"],
        summary="Decompose a text blob into atomic facts (stored when store=true)",
        failures=(*BODY_ERRORS, 503),
    )
    def post(self, request: Request) -> Response:
        given = valid_body(ExtractIn, request)
        try:
            result = text_extract(
                user=request.user,
                agent=request_agent(request),
                **with_context(given, request_context(request)),
            )
        except LLMError as error:
            raise _unavailable(error) from None
        return Response(result)


class ConsolidateView(APIView):
    @row_action(
        "sessions_consolidate",
        inline_serializer(
            "ConsolidateResult",
            {
                "status": serializers.CharField(),
                "session_id": serializers.CharField(),
                "turns_consolidated": serializers.IntegerField(),
                "summary": serializers.CharField(required=False),
                "note_id": serializers.IntegerField(required=False, allow_null=True),
                "facts": ExtractedFact(many=True, required=False),
            },
        ),
        tags=["conversations"],
        parameters=[SESSION_ID],
        summary="Consolidate a session now: a summary note plus knowledge items",
        failures=(404, 503),
    )
    def post(self, request: Request, session_id: str) -> Response:
        refuse_body(request_body(request))
        session = Session.objects.for_user(request.user).get(session_id=session_id)
        try:
            result = consolidate_session(session_pk=session.pk, force=True)
        except LLMError as error:
            raise _unavailable(error) from None
        return Response({"session_id": session.session_id, "turns_consolidated": 0, **result})


class ProfileQuerySerializer(StrictSerializer):
    context = serializers.CharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text="This context's items and global ones; default: the X-Gaia-Context "
        "header, else the agent's default context (global: every context).",
    )


class ProfileView(APIView):
    @operation(
        "prompt_profile",
        inline_serializer(
            "Profile",
            {
                "profile": serializers.CharField(),
                "bullets": serializers.ListField(child=serializers.CharField()),
                "source": serializers.ChoiceField(choices=["llm", "raw"]),
                "stale": serializers.BooleanField(),
                "generated_at": serializers.DateTimeField(allow_null=True),
            },
        ),
        tags=["prompt"],
        summary="The user's distilled profile block (<= 20 bullets) for a system prompt",
        description="Distilled per context (the items of the context plus global; without "
        "one, every context). Identity leads (name, family, work; profile items), then "
        "pinned items, then stored importance x confidence; diary notes and superseded "
        "or forgotten items never become bullets. Until a model has distilled it (or "
        "without one), `source` is raw: the ranked items themselves. Handing the block "
        "out counts as use of its items (decay).",
        parameters=[ProfileQuerySerializer],
    )
    def get(self, request: Request) -> Response:
        given = valid_query(ProfileQuerySerializer, request).get("context") or None
        context = read_context(given, request_active_context(request))
        view, shown = profile_block(user=request.user, context=context)
        memory_seen(user=request.user, item_ids=shown)  # handed to an agent: used, for decay
        return Response(view)
