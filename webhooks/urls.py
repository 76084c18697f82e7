"""The webhooks API (included under /api/v1/)."""

from django.urls import path

from webhooks import api

urlpatterns = [
    path("webhooks/", api.WebhookListView.as_view(), name="api-webhooks"),
    path("webhooks/<int:pk>/", api.WebhookDetailView.as_view(), name="api-webhook-detail"),
    path("webhooks/<int:pk>/secret/", api.WebhookSecretView.as_view(), name="api-webhook-secret"),
    path("webhooks/<int:pk>/pause/", api.WebhookPauseView.as_view(), name="api-webhook-pause"),
    path("webhooks/<int:pk>/resume/", api.WebhookResumeView.as_view(), name="api-webhook-resume"),
    path("webhooks/<int:pk>/ping/", api.WebhookPingView.as_view(), name="api-webhook-ping"),
    path(
        "webhooks/<int:pk>/deliveries/",
        api.WebhookDeliveriesView.as_view(),
        name="api-webhook-deliveries",
    ),
]
