"""OpenAPI house rules: the schema class every API view uses, and described path parameters.

Public text is written for the public: developer docstrings of views and serializers never
become descriptions in the schema (they name internals); operations describe themselves
with `extend_schema(summary=, description=)`, fields with `help_text`.
"""

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import get_override
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers


class AutoSchema(SpectacularAutoSchema):
    def get_description(self) -> str:
        return ""  # not the view's docstring; extend_schema(description=...) still applies

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if get_override(serializer, "description", None) is None:
            schema.pop("description", None)  # not the serializer's (or its base's) docstring
        return schema


def path_id(description: str) -> OpenApiParameter:
    """The integer `id` in a path, described."""
    return OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description=description)


SESSION_ID = OpenApiParameter(
    "session_id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The session id the agent chose when it logged the session's turns.",
)


_ERROR_BODY = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorDetail",
            {
                "code": serializers.CharField(),
                "message": serializers.CharField(),
                "fields": serializers.DictField(
                    child=serializers.ListField(child=serializers.CharField()), required=False
                ),
            },
        )
    },
)
_ERROR_TEXT = {
    400: "Invalid input (fields name what is wrong).",
    401: "Missing, malformed, revoked or expired token.",
    403: "Not allowed for this caller (staff only; an app token with or without user_id).",
    404: "Not found (also for another user's ids).",
    413: "Request body too large.",
    415: "Unsupported media type.",
    429: "Too many requests for this token.",
    503: "No language model is configured, or it gave no usable answer.",
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """OpenAPI responses for the given error statuses (401 and 429 are always possible)."""
    wanted = sorted({*codes, 401, 429})
    return {code: OpenApiResponse(_ERROR_BODY, description=_ERROR_TEXT[code]) for code in wanted}


def public_errors(*codes: int) -> dict[int, OpenApiResponse]:
    return {code: OpenApiResponse(_ERROR_BODY, description=_ERROR_TEXT[code]) for code in codes}
