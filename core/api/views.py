"""What API views share beyond the conventions in core.api.conventions: a body checked by its
serializer, and a list answered a page at a time.

Apart from core.api.conventions because DRF's views import that module's throttle while they are
being built; this one imports the views.
"""

from collections.abc import Callable, Iterable
from typing import Any

from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer


def valid(
    serializer: type[BaseSerializer], data: Any, context: dict[str, Any] | None = None
) -> dict[str, Any]:
    """`data` as `serializer` cleans it; a 400 naming the fields otherwise."""
    given = serializer(data=data, context=context or {})
    given.is_valid(raise_exception=True)
    return given.validated_data


def _credential_keys(request: Request) -> tuple[str, ...]:
    return tuple(getattr(getattr(request, "auth", None), "request_keys", ()))


def request_body(request: Request) -> Any:
    """The body of the operation: the request's, without the keys its credential took
    (an app's `user_id`, naming the person it acts for: they are no field of it)."""
    keys, data = _credential_keys(request), request.data
    if keys and type(data) is dict:  # a JSON object (a form's QueryDict names no person)
        return {key: value for key, value in data.items() if key not in keys}
    return data


def request_query(request: Request) -> dict[str, Any]:
    """The query string of the operation, without the keys the credential took."""
    keys = _credential_keys(request)
    return {key: value for key, value in request.query_params.dict().items() if key not in keys}


def valid_body(
    serializer: type[BaseSerializer], request: Request, context: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The request body as `serializer` cleans it; a 400 naming the fields otherwise."""
    return valid(serializer, request_body(request), context)


def valid_query(serializer: type[BaseSerializer], request: Request) -> dict[str, Any]:
    """The query string as `serializer` cleans it; a 400 naming the parameters otherwise."""
    return valid(serializer, request_query(request))


class PagedListView(GenericAPIView):
    """A view whose lists are answered a page at a time (core.api.conventions.Pagination), each row
    by the view's `serializer_class` (which OPTIONS and the schema describe too)."""

    def paged(self, rows: Iterable[Any], context: dict[str, Any] | None = None) -> Response:
        page = self.paginate_queryset(rows)
        serializer = self.get_serializer_class()
        return self.get_paginated_response(serializer(page, many=True, context=context or {}).data)

    def filtered(
        self,
        request: Request,
        query: type[BaseSerializer],
        selector: Callable[..., Iterable[Any]],
    ) -> Response:
        """One page of the caller's rows that `selector` picks by the query string (read
        by `query`)."""
        return self.paged(selector(user=request.user, **valid_query(query, request)))
