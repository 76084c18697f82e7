"""What the graph API takes and answers."""

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.api.serializers import MAX_ID, IdField, StrictSerializer, WhenField
from core.ids import ID_RANGE
from graph.models import Entity, Relation
from graph.vocabulary import KINDS, RELATION_TYPES, sentence

MAX_LIST = 100


def _names(help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.CharField(max_length=200),
        max_length=MAX_LIST,
        required=False,
        help_text=help_text,
    )


def _ids(help_text: str) -> serializers.ListField:
    return serializers.ListField(
        child=IdField(), max_length=MAX_LIST, required=False, help_text=help_text
    )


@extend_schema_field({"oneOf": [{"type": "integer", **ID_RANGE}, {"type": "string"}]})
class EntityRefField(serializers.Field):
    """An entity's id, or a name (resolved by exact alias, else a new entity)."""

    def to_internal_value(self, data: Any) -> int | str:
        if isinstance(data, bool) or not isinstance(data, (int, str)):
            raise serializers.ValidationError("An entity id (integer) or a name (string).")
        if isinstance(data, int) and not 1 <= data <= MAX_ID:
            raise serializers.ValidationError(f"An entity id is from 1 to {MAX_ID}.")
        if isinstance(data, str) and not data.strip():
            raise serializers.ValidationError("A name is required.")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class GraphEntityBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Entity
        fields = ["id", "kind", "name"]


class GraphEntitySerializer(serializers.ModelSerializer):
    aliases = serializers.SerializerMethodField(help_text="Every name it goes by.")
    holder = serializers.BooleanField(help_text='The person themselves ("me").')

    class Meta:
        model = Entity
        fields = ["id", "kind", "name", "holder", "aliases", "created_at", "updated_at"]

    def get_aliases(self, entity: Entity) -> list[str]:
        return sorted((a.text for a in entity.aliases.all()), key=str.casefold)


class GraphRelationSerializer(serializers.ModelSerializer):
    subject = GraphEntityBriefSerializer()
    object = GraphEntityBriefSerializer()
    current = serializers.BooleanField(help_text="It holds now (no valid_to).")
    memory_ids = serializers.ListField(
        source="item_ids", child=serializers.IntegerField(), help_text="The memories it came from."
    )
    turn_ids = serializers.SerializerMethodField(help_text="The turns it came from.")
    ended_by = serializers.IntegerField(
        source="ended_by_id", allow_null=True, help_text="The relation that contradicted it."
    )
    sentence = serializers.SerializerMethodField(help_text='"Rui works at Atelier Norte".')

    class Meta:
        model = Relation
        fields = [
            "id", "subject", "type", "object", "sentence", "valid_from", "valid_to", "current",
            "ended_by", "memory_ids", "turn_ids", "created_at",
        ]  # fmt: skip

    def get_turn_ids(self, relation: Relation) -> list[int]:
        return sorted(t.pk for t in relation.turns.all())

    def get_sentence(self, relation: Relation) -> str:
        return sentence(relation.subject.name, relation.type, relation.object.name)


class GraphMemoryBriefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    content = serializers.CharField()
    category = serializers.CharField()
    entity = serializers.CharField()
    created_at = serializers.DateTimeField()


class GraphEntityPageSerializer(serializers.Serializer):
    entity = GraphEntitySerializer()
    relations_now = GraphRelationSerializer(many=True)
    relations_before = GraphRelationSerializer(many=True, help_text="Ended, with valid_to.")
    memories = GraphMemoryBriefSerializer(many=True)


_KIND = "person, organisation, team, project, place, pet, thing, event or other."


class GraphEntityCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200, help_text='Its name ("Rui").')
    kind = serializers.ChoiceField(choices=KINDS, default="thing", help_text=_KIND)
    aliases = _names('Other names it goes by ("Rui Costa", "my partner").')


class GraphAliasesSerializer(StrictSerializer):
    add = _names("Names it goes by from now on.")
    remove = _names("Names it no longer goes by.")


class GraphAliasesAnswerSerializer(serializers.Serializer):
    entity = GraphEntitySerializer()
    taken = serializers.ListField(
        child=serializers.CharField(), help_text="Names another entity goes by (merge them)."
    )


class GraphMergeSerializer(StrictSerializer):
    other = IdField(help_text="The entity that is the same; it is gone after.")


class GraphSplitSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200, help_text="The new entity's name.")
    kind = serializers.ChoiceField(choices=KINDS, required=False, help_text=_KIND)
    aliases = _names("This entity's aliases that the new one takes.")
    memory_ids = _ids("Memories the new entity takes.")
    relation_ids = _ids("Relations the new entity takes (its end of them).")


class GraphRelationCreateSerializer(StrictSerializer):
    subject = EntityRefField(help_text='An entity id, or a name ("me" is the person).')
    subject_kind = serializers.ChoiceField(
        choices=KINDS, required=False, help_text="The kind of a new subject: " + _KIND
    )
    type = serializers.ChoiceField(
        choices=RELATION_TYPES, help_text="partner_of, works_at, leads, member_of, lives_in..."
    )
    object = EntityRefField(help_text="An entity id, or a name.")
    object_kind = serializers.ChoiceField(
        choices=KINDS, required=False, help_text="The kind of a new object: " + _KIND
    )
    valid_from = WhenField(help_text="When it started to hold (default now).")
    memory_ids = _ids("The memories it came from (yours).")
    turn_ids = _ids("The conversation turns it came from (yours).")


class GraphRelationEndSerializer(StrictSerializer):
    at = WhenField(help_text="When it stopped holding (default now).")


class GraphEntityQuerySerializer(serializers.Serializer):
    """The entity list's filters (paging parameters pass by)."""

    kind = serializers.ChoiceField(choices=KINDS, required=False, help_text="One kind.")
    q = serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text="Part of a name or alias."
    )
