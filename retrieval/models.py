"""The per-user index generation: what keeps every process's search caches current."""

from django.conf import settings
from django.db import models


class IndexGeneration(models.Model):
    """Per-user counter bumped on every write that changes what search can return.

    Each serving process compares it with the generation its cached vector index was
    built at, so a write in any process is seen by the next search in every process.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    value = models.BigIntegerField(default=0)
    turn_value = models.BigIntegerField(default=0)  # the same, for conversation turns

    def __str__(self) -> str:
        return f"generation {self.value} of user {self.user_id}"


class IndexChange(models.Model):
    """One row changed at one generation of its owner's corpus (the per-user change log).

    A process whose cached index is behind reads the ids changed since its generation and
    re-reads only those rows. A bump that logs nothing leaves a gap in the log, and a gap
    means "rebuild": `index_rebuild`, bulk loads and writes of older versions all bump
    without logging, and compaction cuts the oldest generations away.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    corpus = models.CharField(max_length=8)  # "items" or "turns"
    generation = models.BigIntegerField()
    row_id = models.BigIntegerField()  # 0: the generation changed no row

    class Meta:
        indexes = [models.Index(fields=["user", "corpus", "generation"], name="index_change_at")]

    def __str__(self) -> str:
        return f"{self.corpus} row {self.row_id} at generation {self.generation}"
