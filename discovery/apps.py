from django.apps import AppConfig


class DiscoveryConfig(AppConfig):
    name = "discovery"
    default_auto_field = "django.db.models.BigAutoField"
