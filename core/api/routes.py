"""URL tables that state each resource once: its list, one row, and the actions on a row.

Names stay whole strings where a reader greps for them (the list and the row); an action
is named after its row's stem and its path segment, so `api-webhook` with `pause` is
`webhooks/<id:pk>/pause/` named `api-webhook-pause`. Views side by side under one prefix
(`segments`) are named the same way: `prompt/` with `system` is `api-prompt-system`.
"""

from collections.abc import Callable, Mapping
from typing import Any

from django.urls import URLPattern, path
from django.views import View

ViewLike = type[View] | Callable[..., Any]


def _view(view: ViewLike) -> Callable[..., Any]:
    """A class-based view's callable, or a function view as it is."""
    return view.as_view() if isinstance(view, type) else view


def resource(
    prefix: str,
    many: ViewLike,
    one: ViewLike,
    *,
    names: tuple[str, str],
    key: str = "<id:pk>",
) -> list[URLPattern]:
    """`prefix` (the list, and adding to it) and `prefix<key>/` (one row), named `names`."""
    return [
        path(prefix, _view(many), name=names[0]),
        path(f"{prefix}{key}/", _view(one), name=names[1]),
    ]


def segments(prefix: str, stem: str, views: Mapping[str, ViewLike]) -> list[URLPattern]:
    """`prefix<segment>/` for each view, named `<stem>-<segment>`, in the order given."""
    return [
        path(f"{prefix}{segment}/", _view(view), name=f"{stem}-{segment}")
        for segment, view in views.items()
    ]


def actions(
    prefix: str, stem: str, views: Mapping[str, ViewLike], *, key: str = "<id:pk>"
) -> list[URLPattern]:
    """`prefix<key>/<action>/` for each action on one row, named `<stem>-<action>`, in the
    order given."""
    return segments(f"{prefix}{key}/", stem, views)
