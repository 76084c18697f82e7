from django.apps import AppConfig

from core import health_checks


class CoreConfig(AppConfig):
    """What every app stands on: ownership, validation, API conventions, health."""

    name = "core"

    def ready(self) -> None:
        health_checks.register()  # the "database" and "worker" checks
        # receivers reach django-q2's models, importable only once the registry is ready
        from core import receivers

        receivers.install()
