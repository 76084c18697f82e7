from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from gaia_site import health
        from memory import health_checks
        from memory.embedding import hooks
        from memory.fulltext_schema import ensure_after_migrate
        from memory.llm import checks  # noqa: F401  (registers the system check)
        from memory.llm.status import llm_health

        health_checks.register()
        hooks.install()  # embedding on write, index updates, the "embedder" health check
        health.register("llm", llm_health)
        post_migrate.connect(ensure_after_migrate, dispatch_uid="gaia-fulltext-triggers")
