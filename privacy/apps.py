from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    """Erasure, retention and reclaiming disk: the only code that deletes across apps."""

    name = "privacy"
