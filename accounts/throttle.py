"""Login throttling: a fixed-window counter of attempts per client IP + username.

Counters live in the Django cache (Redis in production, so every process shares them).
The rate comes from GAIA_LOGIN_THROTTLE_RATE, e.g. "10/min".
"""

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """'10/min' -> (10, 60). Same syntax as DRF throttle rates."""
    count, _, period = rate.partition("/")
    return int(count), _PERIODS[period.strip()[0].lower()]


def client_ip(request: HttpRequest) -> str:
    # X-Forwarded-For is only trustworthy when the operator says a proxy sets it.
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[0].strip()
    return request.META.get("REMOTE_ADDR", "") or "unknown"


class LoginThrottle:
    """Counts attempts for one (kind, IP, username); blocks at the limit."""

    def __init__(self, request: HttpRequest, username: str, kind: str = "login") -> None:
        rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["login"]
        self.limit, self.window = parse_rate(rate)
        # Hashed: user-typed names may hold characters cache backends reject in keys.
        who = f"{client_ip(request)}|{(username or '').strip().lower()}"
        self.key = f"gaia:{kind}:{hashlib.sha256(who.encode()).hexdigest()}"

    def blocked(self) -> bool:
        return cache.get(self.key, 0) >= self.limit

    def record(self) -> None:
        """Count one attempt against the limit."""
        # add() starts the window; incr() keeps its expiry.
        if not cache.add(self.key, 1, self.window):
            try:
                cache.incr(self.key)
            except ValueError:  # expired between add() and incr()
                cache.add(self.key, 1, self.window)

    def reset(self) -> None:
        cache.delete(self.key)


TOO_MANY = "Too many attempts. Wait a minute, then try again."


def throttle_admin_login(site) -> None:
    """Put the admin's login form under the same per IP + username limit as the app's
    (one shared counter: the two forms do not add up to twice the attempts)."""
    from django.contrib.auth.forms import AuthenticationForm
    from django.shortcuts import render

    plain_login = site.login

    def login(request: HttpRequest, extra_context=None):
        if request.method != "POST":
            return plain_login(request, extra_context)
        throttle = LoginThrottle(request, request.POST.get("username", ""))
        if throttle.blocked():
            form = AuthenticationForm(request, initial={"username": request.POST.get("username")})
            context = {"form": form, "blocked": TOO_MANY, "next": request.GET.get("next", "")}
            return render(request, "registration/login.html", context, status=429)
        response = plain_login(request, extra_context)
        if request.user.is_authenticated and request.user.is_staff:
            throttle.reset()
        else:
            throttle.record()
        return response

    site.login = login
