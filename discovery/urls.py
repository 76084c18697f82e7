"""Discovery API, included under /api/v1/."""

from django.urls import path

from core.api.routes import actions
from discovery import api

urlpatterns = [
    path("discovery/findings/", api.FindingsView.as_view(), name="api-discovery-findings"),
    path(
        "discovery/findings/approve/",
        api.FindingsApproveView.as_view(),
        name="api-discovery-findings-approve",
    ),
    *actions(
        "discovery/findings/",
        "api-discovery-finding",
        {"approve": api.FindingApproveView, "reject": api.FindingRejectView},
    ),
    path("discovery/reset/", api.ResetView.as_view(), name="api-discovery-reset"),
]
