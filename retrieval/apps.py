from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    """Search machinery: full-text and vector indexes, embedders, fusion."""

    name = "retrieval"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from retrieval import receivers  # they reach the models: only once the registry is ready

        receivers.install()
