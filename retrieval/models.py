"""The per-user index generation: what keeps every process's search caches current.

The table kept its name from when the memory app held this model.
"""

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

    class Meta:
        db_table = "memory_indexgeneration"

    def __str__(self) -> str:
        return f"generation {self.value} of user {self.user_id}"
