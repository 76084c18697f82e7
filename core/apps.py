from django.apps import AppConfig
from django.urls import register_converter

from core.ids import IdConverter
from core.server import health_checks


class CoreConfig(AppConfig):
    """What every app stands on: ownership, validation, API conventions, health."""

    name = "core"

    def ready(self) -> None:
        register_converter(IdConverter, "id")  # `<id:pk>`: before any URL table is read
        health_checks.register()  # the "database" and "worker" checks
        # receivers reach django-q2's models, importable only once the registry is ready
        from core import receivers

        receivers.install()
