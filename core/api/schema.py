"""OpenAPI: the bearer-token security scheme and the public schema/docs views."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.auth.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token (web app: API tokens, or `manage.py create_api_token`).",
        }


class SchemaView(SpectacularAPIView):
    """The OpenAPI 3 schema; public, like the docs page that reads it."""


class DocsView(SpectacularSwaggerSplitView):
    """Swagger UI served from our own static files (drf-spectacular-sidecar): works offline.
    Its start-up script is a second request to this view (`?script`), not inline, so the
    page runs under the Content-Security-Policy."""

    url_name = "api-schema"
    template_name = "api/docs.html"
