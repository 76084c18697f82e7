"""Shapes of the discovery API (output, and request bodies for the OpenAPI schema).

Validation itself lives in discovery.services, shared with the command and web queue.
"""

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from core.api.serializers import IdField
from core.api.shapes import optional_text, read_only_meta
from discovery.models import STATUSES, Finding
from discovery.scanners import SCANNERS
from memory.models import CATEGORIES, KnowledgeItem


class FindingSerializer(serializers.ModelSerializer):
    knowledge_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = Finding
        fields = [
            "id", "content", "category", "context", "entity", "sensitive", "confidence",
            "scanner", "status", "created_at", "decided_at", "knowledge_id",
        ]  # fmt: skip
        read_only_fields = fields


class KnowledgeBriefSerializer(serializers.ModelSerializer):
    # Plain strings: the knowledge API documents the category and source choices.
    category = serializers.CharField(read_only=True)
    source = serializers.CharField(read_only=True)
    deduplicated = serializers.BooleanField(read_only=True, default=False)

    class Meta:
        model = KnowledgeItem
        fields = [
            "id", "content", "category", "context", "entity", "sensitive", "source",
            "confidence", "deduplicated",
        ]  # fmt: skip
        read_only_fields = fields


class ApprovedFindingSerializer(FindingSerializer):
    knowledge = KnowledgeBriefSerializer(read_only=True)

    Meta = read_only_meta(FindingSerializer, "knowledge")


@extend_schema_serializer(component_name="FindingProposal")
class FindingInSerializer(serializers.Serializer):
    content = serializers.CharField(max_length=2000)
    category = serializers.ChoiceField(choices=CATEGORIES, default="fact")
    context = serializers.CharField(max_length=100, default="global")
    entity = optional_text(200)
    sensitive = serializers.BooleanField(default=False)
    scanner = serializers.ChoiceField(choices=list(SCANNERS))


@extend_schema_serializer(component_name="FindingsPropose")
class ProposeRequestSerializer(serializers.Serializer):
    findings = FindingInSerializer(many=True, help_text="The findings of a scan.")


class SkippedSerializer(serializers.Serializer):
    duplicate = serializers.IntegerField(help_text="already pending")
    rejected = serializers.IntegerField(help_text="rejected before: never proposed again")
    approved = serializers.IntegerField(help_text="approved before")
    stored = serializers.IntegerField(help_text="memory already holds the same fact")
    refused = serializers.IntegerField(help_text="credential-shaped: never stored")


class ProposeResponseSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    skipped = SkippedSerializer()
    findings = FindingSerializer(many=True)


@extend_schema_serializer(component_name="FindingApprove")
class ApproveRequestSerializer(serializers.Serializer):
    content = serializers.CharField(
        required=False, max_length=2000, help_text="The fact as edited (default: as proposed)."
    )
    category = serializers.ChoiceField(
        choices=CATEGORIES, required=False, help_text="Change the category."
    )
    context = serializers.CharField(required=False, max_length=100, help_text="Change the context.")
    entity = optional_text(200, "Change the entity.")
    sensitive = serializers.BooleanField(required=False, help_text="Mark it private, or not.")


@extend_schema_serializer(component_name="FindingsApprove")
class BulkApproveRequestSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=IdField(),
        max_length=1000,
        help_text="The ids of the findings to approve as they are.",
    )


class BulkApproveResponseSerializer(serializers.Serializer):
    approved = serializers.IntegerField()
    findings = FindingSerializer(many=True)


@extend_schema_serializer(component_name="DiscoveryReset")
class ResetRequestSerializer(serializers.Serializer):
    confirm = serializers.BooleanField(help_text="must be true")


class ResetResponseSerializer(serializers.Serializer):
    erased_items = serializers.IntegerField()
    cleared_findings = serializers.IntegerField()


STATUS_FILTERS = [*STATUSES, "all"]
