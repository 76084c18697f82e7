"""Shapes of serializers: read-only model serializers (the fields they show, and their
base's fields and a few more) and the optional text field of request bodies and queries.

An answer that adds one field to a shape (a token with its secret, a memory with its
conflicts) keeps every field of the base, in the base's order, read-only like the base.
"""

from django.db.models import Model
from rest_framework import serializers


def shown_meta(model: type[Model], *fields: str) -> type:
    """A `Meta` showing `fields` of `model`, all read-only."""
    shown = list(fields)
    return type("Meta", (), {"model": model, "fields": shown, "read_only_fields": shown})


def read_only_meta(base: type[serializers.ModelSerializer], *extra: str) -> type:
    """A `Meta` for a subclass of `base`: its fields, then `extra`, all read-only."""
    fields = [*base.Meta.fields, *extra]
    return type("Meta", (base.Meta,), {"fields": fields, "read_only_fields": fields})


def optional_text(max_length: int, help_text: str | None = None) -> serializers.CharField:
    """A text a request may leave out or send empty."""
    return serializers.CharField(
        max_length=max_length, required=False, allow_blank=True, help_text=help_text
    )
