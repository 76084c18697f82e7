"""State the background jobs keep: the per-user profile cache and judged pairs."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from memory.ownership import OwnedModel


class ProfileCache(models.Model):
    """The distilled profile of one user, valid while their index generation is unchanged."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    generation = models.BigIntegerField(default=0)
    bullets = models.JSONField(default=list)
    built_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"profile of user {self.owner_id} at generation {self.generation}"


class ReconciledPair(OwnedModel):
    """A pair of similar items the LLM has judged, so later runs do not ask again."""

    low = models.BigIntegerField()
    high = models.BigIntegerField()
    outcome = models.CharField(max_length=12)
    similarity = models.FloatField(default=0.0)
    judged_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "low", "high"], name="reconciled_pair_once")
        ]

    def __str__(self) -> str:
        return f"{self.low}~{self.high}: {self.outcome}"
