"""Building blocks shared by the API serializers and views (memory and conversations).

Input rules beyond DRF's own: every key and string must be valid text (core.text), unknown
body fields are refused (an `owner` or `id` in a body is never taken), dates go through
the same parser as the services (naive values in the user's time zone, within the range
every time zone can show), JSON values must survive every backend (no NUL characters, no
non-finite numbers, bounded nesting).
"""

from datetime import datetime
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    PolymorphicProxySerializer,
    extend_schema_field,
)
from rest_framework import serializers

from core.api.openapi import errors, public_errors  # noqa: F401 (callers import them from here)
from core.ids import MAX_ID
from core.jsonsafe import check_json
from core.text import data_problem
from core.validation import parse_when


class IdField(serializers.IntegerField):
    """A row id in a body: 1 to MAX_ID (core.ids), else a 400 naming the field."""

    default_error_messages = {
        "min_value": f"An id is from 1 to {MAX_ID}.",
        "max_value": f"An id is from 1 to {MAX_ID}.",
        "max_string_length": f"An id is from 1 to {MAX_ID}.",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_ID, **kwargs)

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool):
            self.fail("invalid")
        return super().to_internal_value(data)


def django_errors(error: DjangoValidationError) -> list[str]:
    if hasattr(error, "error_dict"):
        return [m for messages in error.message_dict.values() for m in messages]
    return list(error.messages)


class StrictSerializer(serializers.Serializer):
    """Refuses text that is not valid (core.text) anywhere in its input, whoever parsed
    it (the API's JSON parser checks too; agent tool arguments arrive as a JSON string),
    and body fields it does not know, so mass assignment cannot happen silently."""

    def to_internal_value(self, data: Any) -> Any:
        found = data_problem(data)
        if found:
            path, problem = found
            raise serializers.ValidationError({path or "non_field_errors": [problem]})
        if isinstance(data, dict):
            unknown = sorted(str(k) for k in data if k not in self.fields)
            if unknown:
                raise serializers.ValidationError(
                    {name: ["Unknown field: it cannot be set."] for name in unknown}
                )
        return super().to_internal_value(data)


class JudgedHitsSerializer(serializers.Serializer):
    """A search answer's word on how its hits were chosen (`retrieval.judge.Hits`)."""

    judged = serializers.BooleanField(
        help_text="Whether the relevance judge ordered and chose these hits (false: the fused "
        "order, because the caller asked for the fast path or the judge was off, failed or "
        "ran out of time, or the ranking was settled without it; judge_note says which)."
    )
    judge_note = serializers.CharField(
        help_text='Why not judged: "skipped", "off", "deadline", "unavailable", '
        '"time range", "settled" (the ranking decided without the judge: the first hit is '
        "strongly similar and first by every stage); empty when judged."
    )


class _NoBody(StrictSerializer):
    """An operation's body when it takes none: every field is unknown."""


def refuse_body(data: Any) -> None:
    """For operations that take no body: one with fields is a 400 naming them, so a
    client that meant something by them learns that nothing was taken."""
    if data is None or data == "" or (isinstance(data, dict) and not data):
        return
    _NoBody(data=data).is_valid(raise_exception=True)


@extend_schema_field(OpenApiTypes.DATETIME)
class WhenField(serializers.Field):
    """An ISO 8601 date or time; naive values are read in the user's time zone."""

    def __init__(self, *, allow_now: bool = False, **kwargs: Any) -> None:
        self.allow_now = allow_now
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> datetime | str | None:
        if self.allow_now and isinstance(data, str) and data.strip().lower() == "now":
            return "now"
        if isinstance(data, str) and ("\x00" in data or len(data) > 64):
            raise serializers.ValidationError("Not an ISO 8601 date or time.")
        if data == "":
            return None
        if "tz" not in self.context:
            # A naive time read as UTC moved an Oslo user's 19:00 to 20:00: every input
            # serializer with a time takes the caller's zone (accounts.services.user_context).
            raise ImproperlyConfigured(f"{type(self.parent).__name__} needs a 'tz' context.")
        try:  # also refuses times outside the range every zone can show (core.validation)
            return parse_when(data, field=self.field_name, tz=self.context["tz"])
        except DjangoValidationError as error:
            raise serializers.ValidationError(django_errors(error)) from None

    def to_representation(self, value: Any) -> Any:
        return value.isoformat() if isinstance(value, datetime) else value


@extend_schema_field({"type": "object", "additionalProperties": True})
class RoundedFloatField(serializers.FloatField):
    """A float answered to `places` decimals: 0.8, not 0.7999999999999999 (a stored
    confidence after a few recall bumps of 0.02)."""

    def __init__(self, *, places: int = 4, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.places = places

    def to_representation(self, value: Any) -> float:
        return round(float(value), self.places)


class JSONObjectField(serializers.JSONField):
    """A JSON object (not a list or a scalar) that every database backend can store."""

    def __init__(self, *, allow_list: bool = False, **kwargs: Any) -> None:
        self.allow_list = allow_list
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        allowed = (dict, list) if self.allow_list else (dict,)
        if not isinstance(data, allowed):
            kind = "an object or a list" if self.allow_list else "an object"
            raise serializers.ValidationError(f"Must be a JSON {kind}.")
        try:
            check_json(data)
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None
        return data


class OneOrMany:
    """Parse a body that is one object or a list of them (batch), in request order."""

    MAX_BATCH = 1000

    @classmethod
    def parse(cls, serializer_class: type, data: Any, context: dict) -> tuple[list[dict], bool]:
        many = isinstance(data, list)
        if many and len(data) > cls.MAX_BATCH:
            raise serializers.ValidationError(f"At most {cls.MAX_BATCH} entries per request.")
        serializer = serializer_class(
            data=data, many=many, context=context, **({"allow_empty": False} if many else {})
        )
        serializer.is_valid(raise_exception=True)
        return (serializer.validated_data if many else [serializer.validated_data]), many


def one_or_many(name: str, serializer_class: type) -> PolymorphicProxySerializer:
    """OpenAPI shape of a body (or answer) that is one object or a list of them."""
    return PolymorphicProxySerializer(
        component_name=name,
        serializers=[serializer_class, serializer_class(many=True)],
        resource_type_field_name=None,
        many=False,
    )
