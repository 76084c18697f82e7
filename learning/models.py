"""State the learning jobs keep: the profile cache, judged pairs and LLM outcome counters.

The tables kept their names from when the memory app held these models.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.ownership import OwnedModel, unique_per_owner


class ProfileCache(models.Model):
    """The distilled profile of one user in one context ("": all of them), valid while
    their index generation is unchanged."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    context = models.CharField(max_length=100, blank=True, default="")
    generation = models.BigIntegerField(default=0)
    bullets = models.JSONField(default=list)
    built_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_profilecache"
        constraints = [unique_per_owner("context", name="profile_cache_once")]

    def __str__(self) -> str:
        return f"profile of user {self.owner_id} ({self.context or 'all'}) at {self.generation}"


class ReconciledPair(OwnedModel):
    """A pair of similar items the LLM has judged, so later runs do not ask again."""

    low = models.BigIntegerField()
    high = models.BigIntegerField()
    outcome = models.CharField(max_length=12)
    similarity = models.FloatField(default=0.0)
    judged_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_reconciledpair"
        constraints = [unique_per_owner("low", "high", name="reconciled_pair_once")]

    def __str__(self) -> str:
        return f"{self.low}~{self.high}: {self.outcome}"


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
        db_table = "memory_llmcounter"
        indexes = [models.Index(fields=["owner", "kind"], name="llm_counter_kind")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.count}"


class LLMState(models.Model):
    """How the model server is doing, shared by every process (one row, key "llm").

    `state` is ok, failing (transient failures in a row, below the breaker's threshold)
    or open (the circuit breaker fails calls fast until `open_until`); `since` is when the
    trouble began (the last change away from ok, or back to it).
    """

    key = models.CharField(max_length=20, unique=True, default="llm")
    state = models.CharField(max_length=10, default="ok")
    since = models.DateTimeField(default=timezone.now)
    failures = models.PositiveIntegerField(default=0)
    open_until = models.DateTimeField(null=True, blank=True)
    last_kind = models.CharField(max_length=40, blank=True, default="")
    last_failure_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.key}: {self.state} since {self.since:%Y-%m-%d %H:%M}"
