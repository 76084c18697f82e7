"""Every other path of mem0's API: 501, naming what is not offered here."""

from django.http import HttpResponsePermanentRedirect
from django.urls import Resolver404, resolve
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from mem0api.api.base import Mem0View, NotSupported

# (path prefix, what mem0 calls it): the first that matches names the feature.
FEATURES = [
    ("v1/feedback", "feedback"),
    ("v1/summary", "summaries"),
    ("v1/event", "events"),
    ("v1/events", "events"),
    ("v2/profiles", "profiles"),
    ("v2/entities/user", "profiles"),
    ("api/v1/webhooks", "mem0's webhooks"),
    ("api/v1/orgs", "organizations and projects (project settings, members)"),
    ("v1/memories", "this memory endpoint (mem0ai 2.x uses v3)"),
    ("v1/users", "creating entities directly (add creates the user)"),
    ("v1/agents", "creating entities directly (add creates the agent)"),
    ("v1/runs", "creating entities directly (add creates the run)"),
    ("v1/apps", "app entities"),
    ("v1/stats", "stats"),
]


def feature(path: str) -> str:
    path = path.strip("/")
    for prefix, name in FEATURES:
        if path == prefix or path.startswith(prefix + "/"):
            return name
    return f"/{path}/"


def _supported(path: str) -> bool:
    try:
        return resolve(path).url_name != "api-mem0-unsupported"
    except Resolver404:
        return False


class UnsupportedView(Mem0View):
    @extend_schema(exclude=True)  # mem0's own API reference describes this surface
    def get(self, request: Request, rest: str = "") -> Response:
        if not request.path.endswith("/") and _supported(request.path + "/"):
            # A path of ours without its slash: 308 keeps the method and the body.
            target = request.get_full_path(force_append_slash=True)
            return HttpResponsePermanentRedirect(target, preserve_request=True)
        raise NotSupported(
            f"{request.method} /mem0/{rest.strip('/')}/: {feature(rest)} is not supported "
            "by this server (docs/mem0.md lists what is)."
        )

    post = put = patch = delete = get
