from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """API tokens, per-user settings and the account pages."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
