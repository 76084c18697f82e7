"""Read-only model serializers that show their base's fields and a few more.

An answer that adds one field to a shape (a token with its secret, a memory with its
conflicts) keeps every field of the base, in the base's order, read-only like the base.
"""

from rest_framework import serializers


def read_only_meta(base: type[serializers.ModelSerializer], *extra: str) -> type:
    """A `Meta` for a subclass of `base`: its fields, then `extra`, all read-only."""
    fields = [*base.Meta.fields, *extra]
    return type("Meta", (base.Meta,), {"fields": fields, "read_only_fields": fields})
