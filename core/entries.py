"""The checks of a batch write: every entry is validated before anything is stored, and a
bad entry's errors are reported under its index."""

from collections.abc import Callable
from typing import Any, TypeVar

from django.core.exceptions import ValidationError

T = TypeVar("T")


def clean_entries(entries: list[Any], clean: Callable[[int, dict[str, Any]], T]) -> list[T]:
    """`clean(index, entry)` for each entry, in order. An entry that is not an object, or
    that `clean` refuses (ValidationError, or TypeError for an unknown keyword), raises
    ValidationError keyed by the entry's index."""
    cleaned: list[T] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValidationError({str(index): "Each entry must be an object."})
        try:
            cleaned.append(clean(index, entry))
        except ValidationError as error:
            raise ValidationError({str(index): error.messages}) from error
        except TypeError as error:
            raise ValidationError({str(index): f"Unknown field: {error}"}) from error
    return cleaned
