from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from gaia_site import health
        from memory.llm import checks  # noqa: F401  (registers the system check)
        from memory.llm.status import llm_health

        health.register("llm", llm_health)
