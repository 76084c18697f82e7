from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from memory.embedding import hooks

        hooks.install()  # embedding on write, index updates, the "embedder" health check
