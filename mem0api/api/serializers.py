"""The bodies mem0's SDK sends (read loosely where mem0 is loose, strictly where a value
matters) and the memory objects it reads back."""

import hashlib
from typing import Any

from rest_framework import serializers

from accounts.models import AppPerson
from core.api.serializers import JSONObjectField
from memory.models import KnowledgeItem

MAX_MESSAGES = 100
MAX_BATCH = 1000
MAX_TIMESTAMP = 253402300799  # 9999-12-31T23:59:59Z


class MessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "system"])
    content = serializers.CharField(allow_blank=False, trim_whitespace=False)
    name = serializers.CharField(required=False, allow_blank=True, max_length=100)


class AddSerializer(serializers.Serializer):
    messages = MessageSerializer(many=True, allow_empty=False, max_length=MAX_MESSAGES)
    infer = serializers.BooleanField(default=True)
    metadata = JSONObjectField(required=False, allow_null=True)
    # Unix seconds: when the messages were said; the memories are dated then.
    timestamp = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=MAX_TIMESTAMP
    )


class SearchSerializer(serializers.Serializer):
    query = serializers.CharField(max_length=2000)
    top_k = serializers.IntegerField(default=10, min_value=1, max_value=100)
    threshold = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    # Gaia's own: other phrasings of the query, fused with it (recall's `queries`).
    queries = serializers.ListField(
        child=serializers.CharField(max_length=2000, allow_blank=True),
        required=False,
        max_length=4,
    )


class PageSerializer(serializers.Serializer):
    page = serializers.IntegerField(default=1, min_value=1, max_value=100000)
    page_size = serializers.IntegerField(default=100, min_value=1, max_value=200)


class UpdateSerializer(serializers.Serializer):
    text = serializers.CharField(required=False, trim_whitespace=False)
    metadata = JSONObjectField(required=False)

    def validate(self, attrs: dict) -> dict:
        if not attrs:
            raise serializers.ValidationError("Give text and/or metadata.")
        return attrs


class BatchEntrySerializer(UpdateSerializer):
    memory_id = serializers.CharField(max_length=40)

    def validate(self, attrs: dict) -> dict:
        return attrs


class BatchSerializer(serializers.Serializer):
    memories = BatchEntrySerializer(many=True, allow_empty=False, max_length=MAX_BATCH)


def changes_of(given: dict) -> dict[str, Any]:
    """mem0's update fields as the memory service's."""
    changes: dict[str, Any] = {}
    if "text" in given:
        changes["content"] = given["text"]
    if "metadata" in given:
        changes["metadata"] = given["metadata"]
    return changes


def memory_out(
    item: KnowledgeItem,
    *,
    person: AppPerson,
    run_id: str | None,
    score: float | None = None,
) -> dict[str, Any]:
    """A memory as mem0 answers it. The app's own agent (what it writes through when no
    agent_id is given) is no mem0 agent: agent_id is null then."""
    agent = item.agent.name if item.agent_id and item.agent else None
    out: dict[str, Any] = {
        "id": str(item.pk),
        "memory": item.content,
        "hash": hashlib.md5(item.content.encode("utf-8")).hexdigest(),
        "user_id": person.external_id,
        "agent_id": None if agent == person.app.name else agent,
        "app_id": None,
        "run_id": run_id,
        "session_id": run_id,
        "metadata": item.metadata or None,
        "categories": [item.category],
        "immutable": False,
        "expiration_date": None,
        "created_at": item.created_at.isoformat(),
        "updated_at": item.updated_at.isoformat(),
    }
    if score is not None:
        out["score"] = round(float(score), 4)
    return out
