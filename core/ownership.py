"""Per-user ownership: every owned row has an `owner`, every read starts at `for_user`."""

from typing import Any, Self, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
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


M = TypeVar("M", bound=OwnedModel)


def own_row(user: Any, model: type[M], value: Any, *, field: str) -> M | None:
    """`value` (a row of `model` or its id) if it is `user`'s, None for None; another
    user's row and a missing id are the same "No such ..." error on `field`."""
    if value is None:
        return None
    missing = ValidationError(
        {field: f"No such {model._meta.verbose_name}."}, code="does_not_exist"
    )
    if isinstance(value, model):
        if value.owner_id != user.pk:
            raise missing
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(
            {field: f"Expected a {model._meta.verbose_name} id (integer)."}, code="invalid"
        )
    found = model.objects.for_user(user).filter(pk=value).first()
    if found is None:
        raise missing
    return found


def unique_per_owner(*fields: str, name: str) -> models.UniqueConstraint:
    """The constraint that no owner has two rows alike in `fields`."""
    return models.UniqueConstraint(fields=["owner", *fields], name=name)
