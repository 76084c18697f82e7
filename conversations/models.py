"""Conversation sessions, their turns, and the tool calls agents made."""

from django.db import models
from django.utils import timezone

from core.ownership import OwnedModel, unique_per_owner

ROLES = ["user", "assistant", "system", "tool"]
TURN_CONTENT_MAX = 4000
# partial: applied, but some operations the model proposed were refused (see
# extraction_refused and extraction_error); done: every operation applied or skipped.
EXTRACTION_STATES = ["", "pending", "done", "partial", "failed", "skipped"]


class Session(OwnedModel):
    session_id = models.CharField(max_length=128)
    context = models.CharField(max_length=100, default="global")
    created_at = models.DateTimeField(default=timezone.now)
    last_turn_at = models.DateTimeField(default=timezone.now, db_index=True)
    consolidated_at = models.DateTimeField(null=True, blank=True)
    summary = models.TextField(blank=True, default="")
    consolidation_attempts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [unique_per_owner("session_id", name="session_unique_per_owner")]

    def __str__(self) -> str:
        return self.session_id


class Turn(OwnedModel):
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns")
    role = models.CharField(max_length=20, choices=[(r, r) for r in ROLES])
    speaker = models.CharField(max_length=100, blank=True, default="")
    content = models.TextField()
    # The turn before this one in its session (what this turn answers), indexed with it.
    context_text = models.TextField(blank=True, default="", editable=False)
    context = models.CharField(max_length=100, default="global")
    timestamp = models.DateTimeField(default=timezone.now, db_index=True)
    created_at = models.DateTimeField(default=timezone.now)
    consolidated_at = models.DateTimeField(null=True, blank=True)
    extraction_status = models.CharField(
        max_length=10, blank=True, default="", choices=[(s, s) for s in EXTRACTION_STATES]
    )
    extraction_error = models.CharField(max_length=500, blank=True, default="")
    extraction_attempts = models.PositiveSmallIntegerField(default=0)
    # Operations of the model's answer that were refused (unknown, malformed, not allowed).
    extraction_refused = models.PositiveSmallIntegerField(default=0)
    # While the model is unreachable: when the trouble began and when to try next.
    extraction_failing_since = models.DateTimeField(null=True, blank=True)
    extraction_retry_at = models.DateTimeField(null=True, blank=True)
    # Secrets replaced by a marker before the turn was stored (core.secrets).
    secrets_masked = models.PositiveSmallIntegerField(default=0)
    agent = models.ForeignKey(
        "accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    embedding = models.BinaryField(null=True, blank=True, editable=False)
    embedding_model = models.CharField(max_length=200, blank=True, default="")
    # Late interaction (retrieval/tokens.py): the text's token vectors, int8 with one
    # scale, and the model that made them; cleared whenever the embedding is.
    tokens = models.BinaryField(null=True, blank=True, editable=False)
    tokens_model = models.CharField(max_length=200, blank=True, default="", editable=False)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "timestamp"], name="turn_owner_time"),
            models.Index(fields=["owner", "extraction_status"], name="turn_extraction"),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:60]}"


class ToolCall(OwnedModel):
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="tool_calls"
    )
    tool_name = models.CharField(max_length=200, db_index=True)
    args = models.JSONField(default=dict, blank=True)
    result_summary = models.TextField(blank=True, default="")
    success = models.BooleanField(default=True)
    error = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    timestamp = models.DateTimeField(default=timezone.now, db_index=True)
    agent = models.ForeignKey(
        "accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.tool_name} ({'ok' if self.success else 'failed'})"
