from django.apps import AppConfig

from core import health_checks, queue


class CoreConfig(AppConfig):
    """What every app stands on: ownership, validation, API conventions, health."""

    name = "core"

    def ready(self) -> None:
        health_checks.register()  # the "database" and "worker" checks
        # django_q.signals imports django_q's models: importable only once apps are ready.
        from django_q.signals import post_spawn

        post_spawn.connect(queue.lower_worker_priority, dispatch_uid="gaia-worker-nice")
