"""Request and response shapes of the memory endpoints (also used by the agent tools)."""

import json
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from conversations.api.serializers import (
    TimeReadSerializer,
    agent_name_field,
    judge_field,
    min_relevance_field,
    search_filter,
)
from conversations.models import Turn
from core.api.serializers import (
    MAX_ID,
    JSONObjectField,
    JudgedHitsSerializer,
    RoundedFloatField,
    StrictSerializer,
    WhenField,
)
from core.api.shapes import optional_text, read_only_meta
from core.ids import ID_RANGE
from memory import item_conditions
from memory.lineage import item_conflicts
from memory.models import CATEGORIES, PRIVILEGED_CATEGORIES, SOURCE_CONFIDENCE, KnowledgeItem
from memory.recall import MAX_TOP_K
from memory.selectors import ORDERINGS

ALL_CATEGORIES = CATEGORIES + PRIVILEGED_CATEGORIES
WHERE_HELP = (
    "Conditions on the items, applied before ranking, in mem0's filter grammar: "
    '{"metadata": {"key": value or {"gte": 3}}} (eq, ne, in, nin, gt, gte, lt, lte, contains, '
    'icontains, *), {"created_at": {"gte": "2024-01-01"}} (also updated_at), '
    '{"categories": {"in": [...]}}, {"keywords": {"icontains": "..."}}, {"memory_ids": [...]}; '
    "combined with AND and OR (lists) and NOT, nestable (docs/mem0.md)."
)


@extend_schema_field(OpenApiTypes.OBJECT)
class WhereField(serializers.JSONField):
    """A condition tree (`memory.item_conditions.tree`): an object, or its JSON text in a
    query string; validated into the condition itself."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except (ValueError, RecursionError):
                raise serializers.ValidationError("Must be a JSON object.") from None
        try:
            return item_conditions.tree(data)
        except DjangoValidationError as error:
            raise serializers.ValidationError(
                " ".join(m for msgs in error.message_dict.values() for m in msgs)
            ) from None


@extend_schema_field({"type": "integer", **ID_RANGE})
class OwnTurnField(serializers.PrimaryKeyRelatedField):
    """A conversation turn id of the caller's (context "user"); any other id is unknown."""

    default_error_messages = {
        "does_not_exist": "No such turn.",
        "incorrect_type": "Expected a turn id (integer).",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_null=True, **kwargs)

    def get_queryset(self) -> Any:
        return Turn.objects.for_user(self.context["user"])

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, bool) or (isinstance(data, int) and not 0 < data <= MAX_ID):
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(data)


_AGENT_OUT = "The agent that stored it (null: a person in the web app, or an older item)."
_AGENT_FILTER = "Only what the agent of this name stored (GET agents/ lists them)."


_CONFLICT = (
    "An older item that shares most of this one's words but says something else (a "
    "place, day, number, name or negation): both are kept until reconciliation judges "
    "them; null when there is none or it was judged. The older item may have been "
    "forgotten or replaced since: `conflicts` (GET memories/{id}/) lists those still waiting."
)


class MemorySerializer(serializers.ModelSerializer):
    superseded_by = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    conflicts_with = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text=_CONFLICT
    )
    source_turn = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    metadata = serializers.DictField()
    agent = agent_name_field(_AGENT_OUT)
    confidence = RoundedFloatField(read_only=True)
    importance = RoundedFloatField(read_only=True)

    class Meta:
        model = KnowledgeItem
        fields = [
            "id", "content", "category", "domain", "context", "entity", "sensitive", "source",
            "confidence", "importance", "pinned", "metadata", "use_count", "created_at",
            "updated_at", "last_used", "due_at", "reminded_at", "superseded_by", "forgotten_at",
            "source_turn", "agent", "conflicts_with",
        ]  # fmt: skip
        read_only_fields = fields


class MemoryDetailSerializer(MemorySerializer):
    conflicts = serializers.SerializerMethodField(
        help_text="The active items linked with this one as a possible conflict, either way "
        "(waiting for reconciliation; without a configured model they wait until one is)."
    )

    Meta = read_only_meta(MemorySerializer, "conflicts")

    @extend_schema_field(
        {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "content": {"type": "string"}},
            },
        }
    )
    def get_conflicts(self, item: KnowledgeItem) -> list[dict[str, Any]]:
        linked = item_conflicts(user=item.owner, item=item)
        return [{"id": other.pk, "content": other.content} for other in linked]


OUTCOMES = ["new", "deduplicated", "conflict"]


class MemoryCreatedSerializer(MemorySerializer):
    deduplicated = serializers.BooleanField(
        read_only=True,
        help_text="True when an item saying the same thing was updated instead of adding one.",
    )
    outcome = serializers.ChoiceField(
        choices=OUTCOMES,
        read_only=True,
        help_text="What the write did: deduplicated (folded into an item saying the same), "
        "conflict (stored and linked by conflicts_with to an item it may contradict) or new.",
    )

    Meta = read_only_meta(MemorySerializer, "deduplicated", "outcome")


_CATEGORY = (
    "What kind of memory: fact (default), preference, error, skill, note or reminder; "
    "profile, permission and system are for people, not agents."
)
_DOMAIN = "Topic area, e.g. coding or health."
_CONTEXT = "A scope such as work or personal; global (the default) is seen in every context."
_SENSITIVE = "Private: left out of prompts and of recall unless asked for."
_CONFIDENCE = "0..1; by default from the source (0.7 for an agent's tool call)."
_METADATA = "Any JSON object the agent wants kept with the item."
_PINNED = "Never decays or fades (e.g. the user's name); default false."
_IMPORTANCE = (
    "0..1, how much it matters on its own; ranks the system prompt and profile and slows "
    "decay. By default from the category and source (identity and preferences highest)."
)


class MemoryCreateSerializer(StrictSerializer):
    content = serializers.CharField(
        max_length=100_000, help_text="One self-contained statement (stored up to 2000 chars)."
    )
    category = serializers.ChoiceField(choices=ALL_CATEGORIES, default="fact", help_text=_CATEGORY)
    domain = serializers.CharField(max_length=100, allow_blank=True, default="", help_text=_DOMAIN)
    context = optional_text(
        100, _CONTEXT + " Default: the X-Gaia-Context header, else the agent's default."
    )
    entity = serializers.CharField(
        max_length=200,
        allow_blank=True,
        default="",
        help_text="Who or what it is about, e.g. person:sarah_chen or project:gaia.",
    )
    sensitive = serializers.BooleanField(default=False, help_text=_SENSITIVE)
    pinned = serializers.BooleanField(default=False, help_text=_PINNED)
    importance = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False, help_text=_IMPORTANCE
    )
    due_at = WhenField(
        help_text="Deadline or reminder time, ISO 8601; naive times are in the user's time zone."
    )
    confidence = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False, help_text=_CONFIDENCE
    )
    metadata = JSONObjectField(required=False, help_text=_METADATA)
    source_turn = OwnTurnField(
        required=False,
        help_text="Id of the caller's logged conversation turn this was learned from; "
        "recall then also finds the item through that turn's words.",
    )


class MemoryUpdateSerializer(StrictSerializer):
    content = serializers.CharField(
        max_length=100_000, required=False, help_text="The corrected statement."
    )
    category = serializers.ChoiceField(choices=ALL_CATEGORIES, required=False, help_text=_CATEGORY)
    domain = optional_text(100, _DOMAIN)
    context = optional_text(100, _CONTEXT)
    entity = optional_text(200, "Who or what it is about.")
    sensitive = serializers.BooleanField(required=False, help_text=_SENSITIVE)
    pinned = serializers.BooleanField(required=False, help_text=_PINNED)
    importance = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False, help_text=_IMPORTANCE
    )
    confidence = serializers.FloatField(
        min_value=0.0, max_value=1.0, required=False, help_text="0..1."
    )
    metadata = JSONObjectField(required=False, help_text=_METADATA)
    due_at = WhenField(help_text="Deadline or reminder time (ISO 8601); null removes it.")
    reminded_at = WhenField(allow_now=True, help_text='ISO 8601, or "now" once delivered.')
    reason = optional_text(
        300, "Why it changed; kept with the earlier version in the item's history."
    )

    def validate(self, attrs: dict) -> dict:
        if not {name for name in attrs if name != "reason"}:
            raise serializers.ValidationError("Nothing to update: give at least one field.")
        return attrs


class MemoryListQuerySerializer(serializers.Serializer):
    category = serializers.ChoiceField(
        choices=ALL_CATEGORIES, required=False, allow_blank=True, help_text="Only this category."
    )
    context = optional_text(100, "Only this context.")
    agent = optional_text(100, _AGENT_FILTER)
    entity = optional_text(200, "Only items about this entity.")
    source = serializers.ChoiceField(
        choices=list(SOURCE_CONFIDENCE),
        required=False,
        allow_blank=True,
        help_text="Only items from this source: user, tool, llm_extract, error_auto, ...",
    )
    sensitive = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only private items; false: none of them; absent: both.",
    )
    include_superseded = serializers.BooleanField(
        default=False, help_text="Also items replaced by a newer version."
    )
    include_forgotten = serializers.BooleanField(
        default=False, help_text="Also forgotten (restorable) items."
    )
    ordering = serializers.ChoiceField(
        choices=sorted(ORDERINGS),
        default="-updated_at",
        help_text="Sort order; a leading minus is newest or highest first.",
    )
    where = WhereField(required=False, help_text=f"{WHERE_HELP} As JSON text.")


QUERIES_HELP = (
    "Up to 4 other phrasings of the same question, searched with it and fused into one "
    "ranking (each hit judged once, against `query`): the words the question lacks, as "
    'the stored text might say it, or a hypothetical answer ("User\'s dentist is ...").'
)


def queries_field() -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(max_length=2_000, allow_blank=True),
        required=False,
        max_length=4,
        default=list,
        help_text=QUERIES_HELP,
    )


def time_read_field() -> TimeReadSerializer:
    return TimeReadSerializer(
        allow_null=True,
        help_text='The time the query names as people say it ("yesterday", "about a week '
        "ago\", in the user's time zone), read as a window that narrowed the search; "
        "null when it names none.",
    )


class RecallSerializer(StrictSerializer):
    query = serializers.CharField(max_length=20_000, help_text="What to look for, in plain words.")
    queries = queries_field()
    top_k = serializers.IntegerField(
        min_value=1, max_value=MAX_TOP_K, default=5, help_text="How many results (default 5)."
    )
    category = search_filter(serializers.ChoiceField, "Only this category.", choices=ALL_CATEGORIES)
    context = search_filter(
        serializers.CharField,
        "Search this context plus global (default: the X-Gaia-Context header, else the "
        "agent's default context; global there means every context).",
        max_length=100,
    )
    agent = search_filter(serializers.CharField, _AGENT_FILTER, max_length=100)
    entity = search_filter(serializers.CharField, "Only items about this entity.", max_length=200)
    include_sensitive = serializers.BooleanField(
        default=False, help_text="Include private items (only when the user asks for them)."
    )
    time_from = WhenField(help_text="Lower bound on created_at (ISO 8601).")
    time_to = WhenField(help_text="Upper bound on created_at (ISO 8601).")
    min_relevance = min_relevance_field()
    judge = judge_field()
    where = WhereField(required=False, help_text=WHERE_HELP)


class RecallHitSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="item.pk")
    content = serializers.CharField(source="item.content")
    category = serializers.CharField(source="item.category")
    context = serializers.CharField(source="item.context")
    entity = serializers.CharField(source="item.entity")
    domain = serializers.CharField(source="item.domain")
    confidence = RoundedFloatField(source="item.confidence")
    source = serializers.CharField(source="item.source")
    created_at = serializers.DateTimeField(source="item.created_at")
    due_at = serializers.DateTimeField(source="item.due_at", allow_null=True)
    metadata = serializers.DictField(source="item.metadata")
    agent = agent_name_field(_AGENT_OUT, source="item.agent.name")
    score = RoundedFloatField(help_text="Ranking score: orders the hits of one query.")
    relevance = RoundedFloatField(
        help_text="How well the hit answers the query, 0..1, comparable across queries."
    )
    matched_by = serializers.ChoiceField(
        choices=[
            "vector",
            "keyword",
            "both",
            "conversation",
            "date",
            "profile",
            "relation",
            "time",
        ],  # fmt: skip
        help_text='"conversation": found only through the turn it was learned from; '
        '"date": only among the items of a day the query names; "profile": the question '
        'asked about the person as a whole ("what do you know about me"), answered with '
        'what matters most of them; "relation": only through an entity the question '
        'names and its relations (see `via`); "time": the question names a time and no '
        'topic ("what did I tell you yesterday?"), newest first.',
    )
    older_than = serializers.IntegerField(
        allow_null=True,
        help_text="A diary note written before another hit was corrected: that hit's id "
        "(the note says what was said then; the hit says what holds now); null otherwise.",
    )
    via = serializers.CharField(
        help_text="How the hit relates to an entity the question names, by name, alias or "
        'role ("my partner is Rui; Rui works at Atelier Norte"); empty when the question '
        "names none of the person's entities."
    )


class RecallResultSerializer(JudgedHitsSerializer):
    results = RecallHitSerializer(many=True)
    time_read = time_read_field()


class ForgetBulkSerializer(StrictSerializer):
    context = optional_text(100, "Only items of this context.")
    entity = optional_text(200, "Only items about this entity (and its aliases).")
    older_than = optional_text(20, 'e.g. "12h", "30d", "6m"')
    categories = serializers.ListField(
        child=serializers.ChoiceField(choices=ALL_CATEGORIES),
        required=False,
        max_length=20,
        help_text="Only items of these categories.",
    )
    dry_run = serializers.BooleanField(default=False, help_text="Only count what would go.")


class ForgetBulkResultSerializer(serializers.Serializer):
    forgotten = serializers.IntegerField(help_text="Items forgotten (or, dry run, that would be).")
    dry_run = serializers.BooleanField()
    ids = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Their ids, oldest first; each can be restored (POST memories/{id}/restore/).",
    )


class UpcomingQuerySerializer(serializers.Serializer):
    days = serializers.IntegerField(
        min_value=0, max_value=366, default=7, help_text="Look ahead this many days (default 7)."
    )


class MemoryListResultSerializer(serializers.Serializer):
    results = MemorySerializer(many=True)
