"""The webhooks API (included under /api/v1/)."""

from core.api.routes import actions, resource
from webhooks import api

urlpatterns = [
    *resource(
        "webhooks/",
        api.WebhookListView,
        api.WebhookDetailView,
        names=("api-webhooks", "api-webhook-detail"),
    ),
    *actions(
        "webhooks/",
        "api-webhook",
        {
            "secret": api.WebhookSecretView,
            "pause": api.WebhookPauseView,
            "resume": api.WebhookResumeView,
            "ping": api.WebhookPingView,
            "deliveries": api.WebhookDeliveriesView,
        },
    ),
]
