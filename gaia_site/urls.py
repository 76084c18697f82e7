"""Every app's URLs, wired in one place: the agent API under /api/v1/, the MCP server at
/mcp, mem0's platform API at /mem0/ (docs/mem0.md), then the pages.

Every API name starts with `api-` and every page name with `web-`: the cross-user guard
(tests/test_architecture.py) requires a cross-user test for each.
"""

from django.contrib import admin
from django.urls import include, path, re_path

from memory.api.mcp_view import McpView

api = [
    path("", include("core.urls")),
    path("", include("accounts.api_urls")),
    path("", include("memory.api.urls")),
    path("", include("conversations.api.urls")),
    path("", include("learning.urls")),
    path("", include("skills.urls")),
    path("", include("discovery.urls")),
    path("", include("privacy.urls")),
    path("", include("webhooks.urls")),
    path("", include("graph.urls")),
]

pages = [
    path("", include("memory.web.urls")),
    path("", include("accounts.urls")),
    path("conversations/", include("conversations.web.urls")),
    path("discovery/", include("discovery.web_urls")),
    path("settings/", include("privacy.web_urls")),
    path("settings/", include("webhooks.web_urls")),
    path("", include("graph.web_urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api)),
    re_path(r"^mcp/?$", McpView.as_view(), name="api-mcp"),
    path("mem0/", include("mem0api.urls")),  # mem0's platform API, for mem0's own SDK
    *pages,
]
