"""GET /api/v1/health/: every registered check; open to anyone, details only to some.

200 while the database answers (the service can serve), 503 otherwise. `status` is "ok"
when every check is ok, "degraded" when only non-database checks fail, "down" otherwise.
Without authentication the answer is that state alone: the checks (queue backlog, the
last task's time, model server errors) describe the whole server, so only a valid API
token or a staff login sees them. Check output is scrubbed of secrets (keys from
settings, passwords in URLs) whatever a check puts in it.
"""

import hmac
import re
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import Http404, HttpRequest, HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.server import health, metrics

_URL_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^/\s@]+@", re.I)


def _secrets() -> list[str]:
    values = [
        settings.SECRET_KEY,
        getattr(settings, "GAIA_LLM_API_KEY", ""),
        getattr(settings, "GAIA_EMBED_API_KEY", ""),
        getattr(settings, "GAIA_RERANK_API_KEY", ""),
        settings.DATABASES["default"].get("PASSWORD") or "",
    ]
    return [v for v in values if v and len(v) >= 4]


def scrub(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        value = _URL_USERINFO.sub(r"\1***@", value)
        for secret in secrets:
            value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {str(k): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v, secrets) for v in value]
    return value


_BODY = inline_serializer(
    "Health",
    {
        "status": serializers.ChoiceField(choices=["ok", "degraded", "down"]),
        "checks": serializers.DictField(
            child=serializers.DictField(),
            required=False,
            help_text="Only with a valid API token or a staff login.",
        ),
    },
)


class HealthView(APIView):
    permission_classes = [AllowAny]
    throttle_classes: list = []

    def perform_authentication(self, request: Request) -> None:
        try:
            request.user  # noqa: B018 (authenticates)
        except Exception:  # a bad token, or no database to check it in: health stays public
            request.user, request.auth = AnonymousUser(), None

    @staticmethod
    def shows_details(request: Request) -> bool:
        """A valid API token, or a staff member's session."""
        return request.auth is not None or bool(getattr(request.user, "is_staff", False))

    @extend_schema(
        operation_id="health_get",
        tags=["health"],
        summary="Service health (no authentication)",
        description=(
            "Runs every registered check (database, worker heartbeat, embedder, LLM). 200 "
            "while the database answers, 503 otherwise. Without a token only `status`; "
            "with a valid token (or a staff login) each check's details too."
        ),
        auth=[],
        responses={
            200: OpenApiResponse(_BODY, description="The database answers."),
            503: OpenApiResponse(_BODY, description="The database does not answer."),
        },
    )
    def get(self, request: Request) -> Response:
        checks = scrub(health.run_all(), _secrets())
        database_ok = bool(checks.get("database", {}).get("ok"))
        everything_ok = all(bool(c.get("ok")) for c in checks.values())
        state = "ok" if everything_ok else ("degraded" if database_ok else "down")
        body = (
            {"status": state, "checks": checks}
            if self.shows_details(request)
            else {"status": state}
        )
        return Response(body, status=200 if database_ok else 503)


def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus's scrape (core/server/metrics.py): 404 unless metrics are on and a token is
    set, 401 without that token as a bearer token."""
    if not metrics.enabled() or not settings.GAIA_METRICS_TOKEN:
        raise Http404
    given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), settings.GAIA_METRICS_TOKEN.encode()):
        answer = HttpResponse("a bearer token is required\n", status=401)
        answer["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return answer
    body, content_type = metrics.scrape()
    return HttpResponse(body, content_type=content_type)
