"""OpenAPI house rules: the schema class every API view uses, described path parameters,
the error responses, and decorators for the operation shapes the views repeat.

Public text is written for the public: developer docstrings of views and serializers never
become descriptions in the schema (they name internals); operations describe themselves
with `extend_schema(summary=, description=)`, fields with `help_text`.
"""

from collections.abc import Callable
from typing import Any, Required, TypedDict, Unpack

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import get_override
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.fields import empty


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


# Decorators for the operation shapes the API views repeat: each is one `extend_schema` with
# the request and the responses filled in; what differs between views stays an argument.

BODY_ERRORS = (400, 413, 415)  # a body that is invalid, too large, or not JSON
Parameter = OpenApiParameter | type[serializers.Serializer]
Decorator = Callable[[Any], Any]


class Shape(TypedDict, total=False):
    """What every operation states besides its request and answer."""

    tags: Required[list[str]]
    summary: Required[str]
    description: str
    parameters: list[Parameter]
    examples: list[OpenApiExample]
    status: int  # of the answer (default 200)
    failures: tuple[int, ...]  # error statuses besides 401 and 429


def operation(
    operation_id: str, answer: Any, *, body: Any = empty, **shape: Unpack[Shape]
) -> Decorator:
    """An operation answered `answer` (no request body unless `body` is given)."""
    status = shape.pop("status", 200)
    failures = shape.pop("failures", ())
    responses = {status: answer, **errors(*failures)}
    return extend_schema(operation_id=operation_id, request=body, responses=responses, **shape)


def row_answer(operation_id: str, answer: Any, **shape: Unpack[Shape]) -> Decorator:
    """A read of one row named in the path: `answer`, or 404 for a missing (or another
    owner's) row."""
    shape.setdefault("failures", (404,))
    return operation(operation_id, answer, **shape)


def row_change(operation_id: str, body: Any, answer: Any, **shape: Unpack[Shape]) -> Decorator:
    """A body sent to one row named in the path (a change, or an action that takes input):
    `answer`, a bad body, or 404 for the row."""
    shape.setdefault("failures", (*BODY_ERRORS, 404))
    return operation(operation_id, answer, body=body, **shape)


def row_action(operation_id: str, answer: Any, **shape: Unpack[Shape]) -> Decorator:
    """An action on one row named in the path that takes no body (a body is a 400):
    `answer`, or 404 for the row."""
    shape.setdefault("failures", (400, 404))
    return operation(operation_id, answer, body=None, **shape)


def row_erase(operation_id: str, done: str = "Erased.", **shape: Unpack[Shape]) -> Decorator:
    """Removing one row named in the path, without a body: 204 (`done` describes it), or
    404 for the row."""
    shape.setdefault("failures", (404,))
    answer = OpenApiResponse(description=done)
    return operation(operation_id, answer, body=None, status=204, **shape)


def body_action(operation_id: str, body: Any, answer: Any, **shape: Unpack[Shape]) -> Decorator:
    """A body posted to a collection or a service (a write, a search): `answer`, or a bad
    body."""
    shape.setdefault("failures", BODY_ERRORS)
    return operation(operation_id, answer, body=body, **shape)
