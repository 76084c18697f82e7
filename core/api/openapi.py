"""OpenAPI house rules: the schema class every API view uses, described path parameters,
the error responses, and decorators for the operation shapes the views repeat.

Public text is written for the public: developer docstrings of views and serializers never
become descriptions in the schema (they name internals); operations describe themselves
with `extend_schema(summary=, description=)`, fields with `help_text`.
"""

from collections.abc import Callable
from typing import Any, Required, TypedDict, TypeVar, Unpack

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import get_override
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.fields import empty

from core.ids import ID_RANGE


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
    kind = {"type": "integer", **ID_RANGE}
    return OpenApiParameter("id", kind, OpenApiParameter.PATH, description=description)


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


def body_example(name: str, value: Any) -> OpenApiExample:
    """An example request body, named (the answers are described by their serializers)."""
    return OpenApiExample(name, value=value, request_only=True)


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
View = TypeVar("View", bound=type)


class Detail(TypedDict, total=False):
    """What an operation of an `Operations` states besides its request and answer (the
    tags, and the path parameters and errors all of them share, come from there)."""

    summary: Required[str]
    description: str
    parameters: list[Parameter]
    examples: list[OpenApiExample]
    status: int  # of the answer (default 200)
    failures: tuple[int, ...]  # error statuses besides 401 and 429


class Shape(Detail):
    """What every operation states besides its request and answer."""

    tags: Required[list[str]]


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


def paged(
    operation_id: str, row: type[serializers.Serializer], **shape: Unpack[Shape]
) -> Decorator:
    """A list answered a page at a time (core.api.views.PagedListView), each entry by `row`:
    or 404 for a page past the end."""
    shape.setdefault("failures", (404,))
    return operation(operation_id, row(many=True), **shape)


def found_or_created(
    operation_id: str, body: Any, answer: Any, **shape: Unpack[Shape]
) -> Decorator:
    """A body that names a row: 201 with a new one, 200 with the one there was already, or
    a bad body."""
    failures = shape.pop("failures", BODY_ERRORS)
    responses = {201: answer, 200: answer, **errors(*failures)}
    return extend_schema(operation_id=operation_id, request=body, responses=responses, **shape)


class Operations:
    """The operations of one resource, with what all of them state said once: their tags,
    the path parameters they share, errors other than each shape's own, and the row the
    operations on one row answer unless they say otherwise. Each method is the shape of the
    same name above; `paged_list` declares a list view's GET on its class.

        api = Operations(["graph"])
        on_relation = api.at(RELATION_ID, row=GraphRelationSerializer)  # /relations/{id}/...

        @on_relation.row_answer("graph_relations_get", summary="Get one relation")
    """

    def __init__(
        self,
        tags: list[str],
        parameters: tuple[Parameter, ...] = (),
        failures: tuple[int, ...] | None = None,
        row: Any = None,
    ) -> None:
        self.tags, self.parameters, self.failures, self.row = tags, parameters, failures, row

    def at(self, *parameters: Parameter, row: Any = None) -> "Operations":
        """The same operations on a path that names these parameters too (answering `row`)."""
        return Operations(self.tags, (*self.parameters, *parameters), self.failures, row)

    def _answer(self, answer: Any) -> Any:
        if answer is None and self.row is None:
            raise TypeError("an operation on a row needs its answer, or the row of its resource")
        return self.row if answer is None else answer

    def _shape(self, detail: Detail) -> Shape:
        shape: Shape = {"tags": self.tags, **detail}
        if self.parameters:
            shape["parameters"] = [*self.parameters, *detail.get("parameters", [])]
        if self.failures is not None:
            shape.setdefault("failures", self.failures)
        return shape

    def stated(self, operation_id: str, body: Any, responses: Any, summary: str) -> Decorator:
        """An operation whose responses are stated whole (no error responses added)."""
        shape = self._shape({"summary": summary})
        return extend_schema(operation_id=operation_id, request=body, responses=responses, **shape)

    def operation(
        self, operation_id: str, answer: Any, *, body: Any = empty, **detail: Unpack[Detail]
    ) -> Decorator:
        return operation(operation_id, answer, body=body, **self._shape(detail))

    def paged_list(self, operation_id: str, **detail: Unpack[Detail]) -> Callable[[View], View]:
        """Declares a list view's GET (core.api.views.PagedListView) on the class: a page of
        rows of its `serializer_class`, the serializer its answers are made with."""

        def declare(view: View) -> View:
            get = paged(operation_id, view.serializer_class, **self._shape(detail))
            return extend_schema_view(get=get)(view)

        return declare

    def row_answer(
        self, operation_id: str, answer: Any = None, **detail: Unpack[Detail]
    ) -> Decorator:
        return row_answer(operation_id, self._answer(answer), **self._shape(detail))

    def row_change(
        self, operation_id: str, body: Any, answer: Any = None, **detail: Unpack[Detail]
    ) -> Decorator:
        return row_change(operation_id, body, self._answer(answer), **self._shape(detail))

    def row_action(
        self, operation_id: str, answer: Any = None, **detail: Unpack[Detail]
    ) -> Decorator:
        return row_action(operation_id, self._answer(answer), **self._shape(detail))

    def row_erase(
        self, operation_id: str, done: str = "Erased.", **detail: Unpack[Detail]
    ) -> Decorator:
        return row_erase(operation_id, done, **self._shape(detail))

    def body_action(
        self, operation_id: str, body: Any, answer: Any, **detail: Unpack[Detail]
    ) -> Decorator:
        return body_action(operation_id, body, answer, **self._shape(detail))

    def found_or_created(
        self, operation_id: str, body: Any, answer: Any, **detail: Unpack[Detail]
    ) -> Decorator:
        return found_or_created(operation_id, body, answer, **self._shape(detail))
