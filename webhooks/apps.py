from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Endpoints people and apps register, the outbox of events, and their deliveries."""

    name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"
