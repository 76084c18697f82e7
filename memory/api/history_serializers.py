"""What the history endpoint reads and answers: an item's states over time."""

from rest_framework import serializers

from core.api.serializers import StrictSerializer
from memory.models import SOURCE_CONFIDENCE


class HistoryQuerySerializer(StrictSerializer):
    limit = serializers.IntegerField(
        min_value=1, max_value=500, default=100, help_text="At most this many entries."
    )


class HistoryEntrySerializer(serializers.Serializer):
    id = serializers.IntegerField(
        allow_null=True,
        help_text="The version's id (restore or erase it by this id); null for the "
        "current state and for an item this one replaced.",
    )
    item_id = serializers.IntegerField(help_text="The item this state belongs to.")
    current = serializers.BooleanField(help_text="True for what agents see now.")
    replaced_item = serializers.BooleanField(
        help_text="True for another item this one replaced (reconciliation)."
    )
    content = serializers.CharField()
    category = serializers.CharField()
    context = serializers.CharField()
    entity = serializers.CharField()
    sensitive = serializers.BooleanField()
    since = serializers.DateTimeField(help_text="When the item started saying this.")
    until = serializers.DateTimeField(
        allow_null=True, help_text="When it was replaced; null while current."
    )
    source = serializers.ChoiceField(
        choices=list(SOURCE_CONFIDENCE), help_text="Who wrote this state (user, tool, ...)."
    )
    token = serializers.CharField(help_text="The agent token's name, when an agent wrote it.")
    agent = serializers.CharField(help_text="The agent that wrote it, when one did.")
    reason = serializers.CharField(help_text="Why the change was made, when given.")


class HistorySerializer(serializers.Serializer):
    item_id = serializers.IntegerField(help_text="The current item the history is of.")
    results = HistoryEntrySerializer(many=True)
