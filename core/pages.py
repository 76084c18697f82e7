"""What the web pages share."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.db.models import Model
from django.http import Http404


@contextmanager
def missing_is_404(*models: type[Model]) -> Iterator[None]:
    """A row of `models` that a service could not find for the user (missing, or someone
    else's) answers the page's 404 rather than a server error."""
    try:
        yield
    except tuple(model.DoesNotExist for model in models):
        raise Http404 from None
