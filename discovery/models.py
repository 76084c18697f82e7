"""Findings: facts proposed by discovery scanners, waiting for their owner's decision."""

from django.db import models
from django.utils import timezone

from core.ownership import OwnedModel, unique_per_owner
from memory.models import CATEGORIES, SOURCE_CONFIDENCE, KnowledgeItem

STATUSES = ["pending", "approved", "rejected"]


class Finding(OwnedModel):
    """One proposed fact. Nothing reaches memory until the owner approves it.

    `fingerprint` (normalised content) is unique per owner, so a re-scan never proposes
    again what is pending, was rejected or was approved.
    """

    content = models.TextField()
    category = models.CharField(max_length=20, choices=[(c, c) for c in CATEGORIES], default="fact")
    context = models.CharField(max_length=100, default="global")
    entity = models.CharField(max_length=200, blank=True, default="")
    sensitive = models.BooleanField(default=False)
    confidence = models.FloatField(default=SOURCE_CONFIDENCE["discovery"])
    scanner = models.CharField(max_length=50)
    status = models.CharField(max_length=10, choices=[(s, s) for s in STATUSES], default="pending")
    fingerprint = models.CharField(max_length=64, editable=False)
    knowledge = models.ForeignKey(
        KnowledgeItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [unique_per_owner("fingerprint", name="finding_once")]
        indexes = [models.Index(fields=["owner", "status", "created_at"], name="finding_queue")]

    def __str__(self) -> str:
        return f"{self.scanner} ({self.status}): {self.content[:60]}"
