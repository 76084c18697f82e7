"""Every app's URLs, wired in one place: the agent API under /api/v1/, the MCP server at
/mcp, mem0's platform API at /mem0/ (docs/mem0.md), then the pages.

Every API name starts with `api-` and every page name with `web-`: the cross-user guard
(tests/test_architecture.py) requires a cross-user test for each.
"""

from django.contrib import admin
from django.urls import include, path, re_path

from core.views import metrics_view
from memory.api.mcp_view import McpView

API_URLCONFS = (
    "core.urls",
    "accounts.api_urls",
    "memory.api.urls",
    "conversations.api.urls",
    "learning.urls",
    "skills.urls",
    "discovery.urls",
    "privacy.urls",
    "webhooks.urls",
    "graph.urls",
)
api = [path("", include(urlconf)) for urlconf in API_URLCONFS]

pages = [
    path("", include("memory.web.urls")),
    path("", include("accounts.urls")),
    path("conversations/", include("conversations.web.urls")),
    path("discovery/", include("discovery.web_urls")),
    path("settings/", include("privacy.web_urls")),
    path("settings/", include("webhooks.web_urls")),
    path("", include("graph.web_urls")),
]

admin.site.site_header = admin.site.site_title = "Gaia Memory admin"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api)),
    re_path(r"^mcp/?$", McpView.as_view(), name="api-mcp"),
    path("mem0/", include("mem0api.urls")),  # mem0's platform API, for mem0's own SDK
    path("metrics", metrics_view, name="metrics"),  # Prometheus (GAIA_METRICS, a token)
    *pages,
]
