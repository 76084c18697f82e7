"""Persistent LLM outcome counters, shared by the web, API and worker processes."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class LLMCounter(models.Model):
    """How often calls of one kind ended ("ok" or a failure kind), per user when known.

    Rows are only ever incremented; concurrent first increments may create two rows for
    the same (owner, kind), which is harmless because readers sum.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    kind = models.CharField(max_length=40)
    count = models.PositiveIntegerField(default=0)
    first_at = models.DateTimeField(default=timezone.now)
    last_at = models.DateTimeField(default=timezone.now)
    last_message = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["owner", "kind"], name="llm_counter_kind")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.count}"
