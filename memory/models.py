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
# A conversation's diary note (consolidation) is about its session: entity
# "session:<session_id>", category note, the session's dates in its metadata.
SESSION_ENTITY = "session:"


class KnowledgeQuerySet(OwnedQuerySet):
    def active(self) -> "KnowledgeQuerySet":
        """Neither forgotten nor superseded: what search, listings and prompts show."""
        return self.filter(forgotten_at__isnull=True, superseded_by__isnull=True)

    def diary_notes(self) -> "KnowledgeQuerySet":
        """The conversations' diary notes (one per session, see `SESSION_ENTITY`)."""
        return self.filter(category="note", entity__startswith=SESSION_ENTITY)

    def without_diary_notes(self) -> "KnowledgeQuerySet":
        return self.exclude(category="note", entity__startswith=SESSION_ENTITY)


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
    # How much the item matters on its own (set when stored: by category and source, or
    # by the model's rating); ranks the system prompt and profile, and slows decay.
    importance = models.FloatField(default=1.0)
    # Never decays (seed 002: "decay-exempt").
    pinned = models.BooleanField(default=False)
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
    # Late interaction (retrieval/tokens.py): the text's token vectors, int8 with one
    # scale, and the model that made them; cleared whenever the embedding is.
    tokens = models.BinaryField(null=True, blank=True, editable=False)
    tokens_model = models.CharField(max_length=200, blank=True, default="", editable=False)
    source_turn = models.ForeignKey(
        "conversations.Turn",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="knowledge_items",
    )
    # The agent that stored it (its token's agent; extraction: the turn's agent).
    agent = models.ForeignKey(
        "accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The agent token it was stored through, when one was (a person in the web app: none).
    token = models.ForeignKey(
        "accounts.ApiToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A possible conflict: an older item that shares most words but says something else
    # (memory/dedup.py). Set when stored, cleared once reconciliation judged the pair.
    conflicts_with = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="conflicted_by"
    )

    objects = KnowledgeQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["owner", "forgotten_at", "superseded_by"], name="ki_active"),
            # The memory list's default order (newest change first) without sorting them all.
            models.Index(
                fields=["owner", "updated_at", "id"],
                condition=models.Q(forgotten_at__isnull=True, superseded_by__isnull=True),
                name="ki_recent",
            ),
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

    @property
    def is_diary_note(self) -> bool:
        """A conversation's diary note: evidence of what was said then (its session's date
        is `metadata["session_date"]`), not a current fact."""
        return self.category == "note" and self.entity.startswith(SESSION_ENTITY)


class MemoryVersion(OwnedModel):
    """An earlier state of an item: what it said until `created_at`, when a change by
    `change_source` (through `token`, for `reason`) replaced it. See memory/versions.py."""

    item = models.ForeignKey(KnowledgeItem, on_delete=models.CASCADE, related_name="versions")
    content = models.TextField()
    category = models.CharField(max_length=20)
    domain = models.CharField(max_length=100, blank=True, default="")
    context = models.CharField(max_length=100, default="global")
    entity = models.CharField(max_length=200, blank=True, default="")
    sensitive = models.BooleanField(default=False)
    confidence = models.FloatField(default=0.7)
    metadata = models.JSONField(default=dict, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)
    source = models.CharField(max_length=20)  # the item's source while it said this
    source_turn = models.ForeignKey(
        "conversations.Turn", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    change_source = models.CharField(max_length=20)
    token = models.ForeignKey(
        "accounts.ApiToken", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    token_name = models.CharField(max_length=100, blank=True, default="")  # kept if deleted
    # The agent that made the change (its token's, or the turn's for extraction).
    agent = models.ForeignKey(
        "accounts.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=300, blank=True, default="")

    objects = OwnedQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["item", "created_at"], name="mv_item")]

    def __str__(self) -> str:
        return f"version {self.pk} of item {self.item_id}"


IMPORT_STATES = ["receiving", "queued", "running", "done", "failed"]


class ImportJob(OwnedModel):
    """An import run by a worker in slices: its file (ImportPart rows), where it got to
    (ImportLink rows) and what it did so far. See memory/import_jobs.py."""

    status = models.CharField(
        max_length=10, choices=[(s, s) for s in IMPORT_STATES], default="receiving"
    )
    # The owner in the web app: the items keep their sources and privileged categories.
    trusted = models.BooleanField(default=False)
    size_bytes = models.PositiveBigIntegerField(default=0)
    records_total = models.PositiveIntegerField(default=0)
    records_done = models.PositiveIntegerField(default=0)
    created = models.JSONField(default=dict, blank=True)  # record type -> rows created
    skipped = models.JSONField(default=dict, blank=True)  # record type -> already there
    error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set by the run holding the job; a run finding it recent leaves the job alone.
    heartbeat = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    def __str__(self) -> str:
        return f"import {self.pk} ({self.status})"


class ImportPart(OwnedModel):
    """A piece of an import's file (whole lines), kept until the import ends."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="parts")
    number = models.PositiveIntegerField()
    text = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "number"], name="import_part_unique")]

    def __str__(self) -> str:
        return f"import {self.job_id} part {self.number}"


class ImportLink(models.Model):
    """Line `line` of the job's file is stored (or was found) as row `row_id` of its kind:
    a run resumed after a stop skips these lines and still knows their rows."""

    job = models.ForeignKey(ImportJob, on_delete=models.CASCADE, related_name="links")
    line = models.PositiveIntegerField()
    row_id = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["job", "line"], name="import_link_unique")]

    def __str__(self) -> str:
        return f"import {self.job_id} line {self.line}: row {self.row_id}"


USAGE_KINDS = ("searches", "memories_used", "skills_applied")


class UsageDay(OwnedModel):
    """How much a person's agents used memory on one day (UTC): searches made, memories
    handed to them, learned skills applied. Counts only, no text: for stats and the
    dashboard (seed 001's usage analytics)."""

    day = models.DateField()
    kind = models.CharField(max_length=20, choices=[(k, k) for k in USAGE_KINDS])
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "day", "kind"], name="usage_day_unique")
        ]

    def __str__(self) -> str:
        return f"{self.kind} of {self.owner_id} on {self.day}: {self.count}"
