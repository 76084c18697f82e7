"""Public API endpoints of the server itself: health, the OpenAPI schema and its docs."""

from django.urls import path

from core import views
from core.api import schema

urlpatterns = [
    path("health/", views.HealthView.as_view(), name="api-health"),
    path("schema/", schema.SchemaView.as_view(), name="api-schema"),
    path("docs/", schema.DocsView.as_view(), name="api-docs"),
]
