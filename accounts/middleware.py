"""Show every date in the signed-in person's own time zone (from their settings)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from accounts.services import user_tz


class UserTimezoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Pages only: the API answers the same way whichever way a caller authenticates.
        user = getattr(request, "user", None)
        if not request.path.startswith("/api/") and user is not None and user.is_authenticated:
            timezone.activate(user_tz(user))
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
