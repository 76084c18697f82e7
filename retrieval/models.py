"""The per-user index generation: what keeps every process's search caches current."""

from django.conf import settings
from django.db import models
from django.utils import timezone


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


class SnapshotErase(models.Model):
    """An erase every node must apply to its own snapshot folder (retrieval/snapshot_marks.py).

    Each node's index snapshots live on its local disk; a row here tells every node to
    delete the owner's folder and to refuse any snapshot read before the erase. Only the
    latest erase of an owner is kept (it covers the earlier ones). Not a foreign key: a
    deleted account's mark outlives it.
    """

    owner_id = models.BigIntegerField()
    gone = models.BooleanField(default=False)  # the account was deleted: nothing written again
    generations = models.JSONField(default=dict)  # corpus -> the owner's generation at the erase
    made_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["owner_id"], name="snapshot_erase_owner"),
            models.Index(fields=["made_at"], name="snapshot_erase_made_at"),
        ]

    def __str__(self) -> str:
        return f"snapshot erase of owner {self.owner_id}"
