"""Discovery API, included under /api/v1/."""

from django.urls import path

from discovery import api

urlpatterns = [
    path("discovery/findings/", api.FindingsView.as_view(), name="api-discovery-findings"),
    path(
        "discovery/findings/approve/",
        api.FindingsApproveView.as_view(),
        name="api-discovery-findings-approve",
    ),
    path(
        "discovery/findings/<int:pk>/approve/",
        api.FindingApproveView.as_view(),
        name="api-discovery-finding-approve",
    ),
    path(
        "discovery/findings/<int:pk>/reject/",
        api.FindingRejectView.as_view(),
        name="api-discovery-finding-reject",
    ),
    path("discovery/reset/", api.ResetView.as_view(), name="api-discovery-reset"),
]
