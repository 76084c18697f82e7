"""The arguments of the memory tools that have no REST twin (by id, list, forget), checked
as strictly as the REST bodies are (memory/agent_tools.py runs the tools)."""

from rest_framework import serializers

from core.api.serializers import IdField, StrictSerializer
from memory.models import CATEGORIES
from memory.tool_schemas import PAGE_MAX


class IdArguments(StrictSerializer):
    id = IdField()


class ListArguments(StrictSerializer):
    category = serializers.ChoiceField(choices=CATEGORIES, required=False)
    context = serializers.CharField(max_length=100, required=False)
    entity = serializers.CharField(max_length=200, required=False)
    include_sensitive = serializers.BooleanField(default=False)
    ordering = serializers.ChoiceField(
        choices=["-updated_at", "-created_at", "created_at", "-confidence", "-last_used"],
        default="-updated_at",
    )
    page = serializers.IntegerField(min_value=1, max_value=PAGE_MAX, default=1)
    page_size = serializers.IntegerField(min_value=1, max_value=100, default=20)


class ForgetArguments(StrictSerializer):
    id = IdField(required=False)
    context = serializers.CharField(max_length=100, required=False)
    entity = serializers.CharField(max_length=200, required=False)
    older_than = serializers.CharField(max_length=20, required=False)
    categories = serializers.ListField(
        child=serializers.ChoiceField(choices=CATEGORIES), required=False, max_length=20
    )
    dry_run = serializers.BooleanField(default=False)
