"""Per-user ownership: every owned row has an `owner`, every read starts at `for_user`."""

from typing import Any, Self

from django.conf import settings
from django.db import models


class OwnedQuerySet(models.QuerySet):
    def for_user(self, user: Any) -> Self:
        """Rows of `user` only; nothing at all for anonymous or missing users."""
        if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
            return self.none()
        return self.filter(owner_id=user.pk)


class OwnedModel(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=True
    )

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True
