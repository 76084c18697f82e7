"""Request and response shapes of the conversation and tool-call endpoints."""

import json
from typing import Any

from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.fields import Field

from conversations.models import ROLES, Session, ToolCall, Turn
from conversations.search import MAX_TOP_K
from core.api.serializers import (
    JSONObjectField,
    JudgedHitsSerializer,
    RoundedFloatField,
    StrictSerializer,
    WhenField,
)
from core.api.shapes import optional_text, shown_meta
from core.jsonsafe import check_json

INT32_MAX = 2**31 - 1


class TurnCreateSerializer(StrictSerializer):
    session_id = serializers.CharField(
        max_length=128, help_text="The conversation, named by the agent; created on first use."
    )
    role = serializers.ChoiceField(
        choices=ROLES, help_text="Who spoke: user, assistant, system or tool."
    )
    content = serializers.CharField(
        max_length=100_000, help_text="What was said (stored up to 4000 chars)."
    )
    context = optional_text(
        100,
        "The memory context of the conversation, e.g. work (default: the "
        "X-Gaia-Context header, else the agent's default context, else global).",
    )
    timestamp = WhenField(help_text="When it was said (ISO 8601); default now.")
    speaker = serializers.CharField(
        max_length=100,
        allow_blank=True,
        default="",
        help_text="The speaker's name when there are several, e.g. in a group chat.",
    )


_AGENT_OUT = "The agent that logged it (null: imported, or logged before agents existed)."


def agent_name_field(help_text: str, source: str = "agent.name") -> serializers.CharField:
    """The name of the agent that wrote a row, read only; null where no agent did."""
    return serializers.CharField(
        source=source, read_only=True, allow_null=True, help_text=help_text
    )


def search_filter(field_class: type[Field], help_text: str, **options: Any) -> Field:
    """An optional filter of a search body: absent, null and "" all mean no filter (models
    send null or "" for what they leave out)."""
    return field_class(
        required=False, allow_null=True, allow_blank=True, help_text=help_text, **options
    )


def min_relevance_field() -> serializers.FloatField:
    """The relevance floor a search request may set: every search of the API reads it alike."""
    return serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        allow_null=True,
        help_text="Leave out hits less relevant than this (0..1; default: the server's "
        "GAIA_MIN_RELEVANCE, which drops what is clearly unrelated; 0 returns every candidate).",
    )


def judge_field() -> serializers.BooleanField:
    """Whether a search request lets the relevance judge order and filter its hits."""
    return serializers.BooleanField(
        default=True,
        help_text="Let the relevance judge (a cross-encoder) read the query with the best "
        "candidates: it orders them and leaves out what does not answer (default true). "
        "false takes the fast path: fused order, no judge.",
    )


class TurnSerializer(serializers.ModelSerializer):
    session_id = serializers.CharField(source="session.session_id", read_only=True)
    agent = agent_name_field(_AGENT_OUT)

    Meta = shown_meta(
        Turn,
        "id", "session_id", "role", "speaker", "content", "context", "timestamp",
        "extraction_status", "extraction_refused", "extraction_error", "secrets_masked",
        "consolidated_at", "agent",
    )  # fmt: skip


class TimeReadSerializer(serializers.Serializer):
    from_ = serializers.CharField(help_text="Start of the window read (ISO 8601).")
    to = serializers.CharField(help_text="End of the window read (ISO 8601, exclusive).")
    said = serializers.CharField(help_text='The words read ("about a week ago").')
    used = serializers.BooleanField(
        help_text="Whether the window narrowed the search (false: nothing of the user's "
        "falls in it, so the search was not narrowed)."
    )

    def get_fields(self) -> dict:
        fields = super().get_fields()
        fields["from"] = fields.pop("from_")
        return fields


class TurnSearchSerializer(StrictSerializer):
    query = optional_text(20_000, "Keywords to look for; leave out to list by time.")
    queries = serializers.ListField(
        child=serializers.CharField(max_length=2_000, allow_blank=True),
        required=False,
        max_length=4,
        default=list,
        help_text="Up to 4 other phrasings of the query, searched with it and fused into one "
        "ranking (each turn judged once, against `query`); a hypothetical reply allowed.",
    )
    top_k = serializers.IntegerField(
        min_value=1, max_value=MAX_TOP_K, default=10, help_text="How many turns (default 10)."
    )
    session_id = search_filter(serializers.CharField, "Only turns of this session.", max_length=128)
    role = search_filter(serializers.ChoiceField, "Only turns of this role.", choices=ROLES)
    time_from = WhenField(help_text="Lower bound on the turn time (ISO 8601).")
    time_to = WhenField(help_text="Upper bound on the turn time (ISO 8601).")
    min_relevance = min_relevance_field()
    judge = judge_field()

    def validate(self, attrs: dict) -> dict:
        if not (attrs.get("query") or "").strip() and not (
            attrs.get("time_from") or attrs.get("time_to")
        ):
            raise serializers.ValidationError("Give a query or a time range (or both).")
        return attrs


class TurnHitSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="turn.pk")
    session_id = serializers.CharField(source="turn.session.session_id")
    role = serializers.CharField(source="turn.role")
    speaker = serializers.CharField(source="turn.speaker")
    content = serializers.CharField(source="turn.content")
    timestamp = serializers.DateTimeField(source="turn.timestamp")
    score = RoundedFloatField(help_text="Ranking score: orders the hits of one query.")
    relevance = RoundedFloatField(
        help_text="How well the turn answers the query, 0..1, comparable across queries "
        "(1 when listed by time)."
    )
    matched_by = serializers.ChoiceField(
        choices=["vector", "keyword", "both", "time", "date"],
        help_text='"time": listed by time (no query); "date": found only among the turns '
        "of a day the query names.",
    )


class TurnSearchResultSerializer(JudgedHitsSerializer):
    results = TurnHitSerializer(many=True)
    time_read = TimeReadSerializer(
        allow_null=True,
        help_text='The time the query names as people say it ("yesterday", "last '
        "Tuesday\", in the user's time zone), read as a window that narrowed the search; "
        "null when it names none.",
    )


class SessionSerializer(serializers.ModelSerializer):
    turn_count = serializers.IntegerField(read_only=True)

    Meta = shown_meta(
        Session,
        "session_id", "context", "created_at", "last_turn_at", "consolidated_at", "summary",
        "turn_count",
    )  # fmt: skip


class SessionDetailSerializer(serializers.Serializer):
    session = SessionSerializer()
    count = serializers.IntegerField(help_text="Turns in the session.")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = TurnSerializer(many=True, help_text="One page of turns, oldest first.")


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "description": "A JSON object as text, as models emit it."},
            {"type": "object", "additionalProperties": True},
            {"type": "array", "items": {}},
        ]
    }
)
class ArgumentsField(serializers.Field):
    """A tool call's arguments: a JSON object or list, or a string holding one."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except (ValueError, RecursionError):
                raise serializers.ValidationError("Not valid JSON.") from None
        if not isinstance(data, (dict, list)):
            raise serializers.ValidationError("Must be a JSON object or list.")
        try:
            check_json(data)
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None
        return data


@extend_schema_serializer(component_name="ToolCallLog")
class ToolCallCreateSerializer(StrictSerializer):
    """One call: OpenAI's field names (`name`, `arguments`) or ours (`tool_name`, `args`)."""

    session_id = serializers.CharField(
        max_length=128, required=False, allow_null=True, help_text="The conversation it belongs to."
    )
    tool_name = serializers.CharField(
        max_length=200, required=False, help_text="The tool's name (or give `name`)."
    )
    name = serializers.CharField(
        max_length=200, required=False, help_text="OpenAI's field for `tool_name`."
    )
    args = JSONObjectField(
        allow_list=True, required=False, allow_null=True, help_text="The arguments it was given."
    )
    arguments = ArgumentsField(
        required=False, allow_null=True, help_text="OpenAI's field for `args` (a JSON string too)."
    )
    result_summary = serializers.CharField(
        max_length=100_000, allow_blank=True, default="", help_text="What the tool returned."
    )
    success = serializers.BooleanField(
        default=True, help_text="false when it failed: the failure becomes an error lesson."
    )
    error = serializers.CharField(
        max_length=100_000, allow_blank=True, default="", help_text="The error of a failed call."
    )
    duration_ms = serializers.IntegerField(
        min_value=0,
        max_value=INT32_MAX,
        required=False,
        allow_null=True,
        help_text="How long the call took, in milliseconds.",
    )
    timestamp = WhenField(help_text="When the call was made (ISO 8601); default now.")

    def validate(self, attrs: dict) -> dict:
        for ours, openai in (("tool_name", "name"), ("args", "arguments")):
            if ours in attrs and openai in attrs:
                raise serializers.ValidationError({openai: [f"Give {ours} or {openai}, not both."]})
            if openai in attrs:
                attrs[ours] = attrs.pop(openai)
        if not attrs.get("tool_name"):
            raise serializers.ValidationError({"tool_name": ["This field is required."]})
        return attrs


class ToolCallSerializer(serializers.ModelSerializer):
    session_id = serializers.CharField(
        source="session.session_id", read_only=True, allow_null=True, default=None
    )
    args = serializers.JSONField()
    agent = agent_name_field(_AGENT_OUT)

    Meta = shown_meta(
        ToolCall,
        "id", "session_id", "tool_name", "args", "result_summary", "success", "error",
        "duration_ms", "timestamp", "agent",
    )  # fmt: skip


class ToolCallListQuerySerializer(serializers.Serializer):
    tool_name = optional_text(200, "Only calls of this tool.")
    success = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only successful calls; false: only failed ones; absent: both.",
    )
    session_id = optional_text(128, "Only calls of this session.")


class ToolSummarySerializer(serializers.Serializer):
    tool_name = serializers.CharField()
    calls = serializers.IntegerField()
    success_rate = serializers.FloatField()
    mean_duration_ms = serializers.FloatField(allow_null=True)
    last_error = serializers.CharField()


class ToolSummaryResultSerializer(serializers.Serializer):
    results = ToolSummarySerializer(many=True)
