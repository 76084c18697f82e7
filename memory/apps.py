from django.apps import AppConfig


class MemoryConfig(AppConfig):
    """The knowledge store: what a user's agents know about them."""

    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"
