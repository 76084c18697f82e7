"""The one table of core: whose erase is running (core/erasing.py)."""

from django.conf import settings
from django.db import models
from django.utils import timezone


class Erasure(models.Model):
    """A person's whole erase, from its start: while `finished_at` is empty their writes
    are refused with a retryable 503. Goes with the account when the erase deletes it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"erase of user {self.user_id}"
