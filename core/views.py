"""GET /api/v1/health/: every registered check, without authentication.

200 while the database answers (the service can serve), 503 otherwise. `status` is "ok"
when every check is ok, "degraded" when only non-database checks fail, "down" otherwise.
Check output is scrubbed of secrets (keys from settings, passwords in URLs) whatever a
check puts in it.
"""

import re
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import health

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
        "checks": serializers.DictField(child=serializers.DictField()),
    },
)


class HealthView(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(
        operation_id="health_get",
        tags=["health"],
        summary="Service health (no authentication)",
        description=(
            "Runs every registered check (database, worker heartbeat, embedder, LLM). 200 "
            "while the database answers, 503 otherwise."
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
        return Response({"status": state, "checks": checks}, status=200 if database_ok else 503)
