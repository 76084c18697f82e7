"""The knowledge store: what a user's agents know about them."""

from django.db import models
from django.utils import timezone

from core.ownership import OwnedModel, OwnedQuerySet

CATEGORIES = ["fact", "preference", "error", "skill", "note", "reminder"]
PRIVILEGED_CATEGORIES = ["profile", "permission", "system"]
SOURCE_CONFIDENCE = {
    "user": 0.8,
    "tool": 0.7,
    "llm_extract": 0.4,
    "error_auto": 0.5,
    "discovery": 0.4,
    "consolidation": 0.5,
}
SOURCES = list(SOURCE_CONFIDENCE)
CONTENT_MAX = 2000


class KnowledgeQuerySet(OwnedQuerySet):
    def active(self) -> "KnowledgeQuerySet":
        """Neither forgotten nor superseded: what search, listings and prompts show."""
        return self.filter(forgotten_at__isnull=True, superseded_by__isnull=True)


class KnowledgeItem(OwnedModel):
    category = models.CharField(
        max_length=20,
        choices=[(c, c) for c in CATEGORIES + PRIVILEGED_CATEGORIES],
        default="fact",
        db_index=True,
    )
    content = models.TextField()
    domain = models.CharField(max_length=100, blank=True, default="")
    context = models.CharField(max_length=100, default="global", db_index=True)
    entity = models.CharField(max_length=200, blank=True, default="", db_index=True)
    sensitive = models.BooleanField(default=False)
    source = models.CharField(
        max_length=20, choices=[(s, s) for s in SOURCE_CONFIDENCE], default="tool"
    )
    confidence = models.FloatField(default=0.7)
    importance = models.FloatField(default=1.0)
    metadata = models.JSONField(default=dict, blank=True)
    use_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    updated_at = models.DateTimeField(default=timezone.now)
    last_used = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)
    reminded_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    forgotten_at = models.DateTimeField(null=True, blank=True)
    decayed_at = models.DateTimeField(null=True, blank=True, editable=False)
    embedding = models.BinaryField(null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    source_turn = models.ForeignKey(
        "conversations.Turn",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="knowledge_items",
    )

    objects = KnowledgeQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["owner", "forgotten_at", "superseded_by"], name="ki_active"),
            models.Index(fields=["owner", "category", "context", "entity"], name="ki_scope"),
            models.Index(fields=["owner", "due_at"], name="ki_due"),
            models.Index(fields=["owner", "embedding_model"], name="ki_embedded"),
            models.Index(fields=["owner", "source_turn"], name="ki_source_turn"),
        ]

    def __str__(self) -> str:
        # Admin checkboxes, titles and the admin log use str(): sensitive text stays out.
        return f"{self.category}: {'(sensitive)' if self.sensitive else self.content[:60]}"

    @property
    def is_active(self) -> bool:
        return self.forgotten_at is None and self.superseded_by_id is None
